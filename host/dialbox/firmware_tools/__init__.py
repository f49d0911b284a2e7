"""Host-side tools for the controller firmware: compile checks, bundles, deploy, provisioning."""

"""Game packages that live only in the tests (plug-ins registered with engine.registry)."""

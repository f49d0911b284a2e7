"""Tests of the controller firmware, its simulated controller and the firmware tools."""

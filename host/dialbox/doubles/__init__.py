"""Controller doubles: light protocol-v1 controllers on the shared codec, for benches and tests."""

from dialbox.doubles.controller import ControllerDouble

__all__ = ["ControllerDouble"]

"""Host side of the simulated controller: the real firmware on a virtual HAL, in a subprocess."""

from dialbox.sim.controller import MqttSettings, SimController, SimError, SimView

__all__ = ["MqttSettings", "SimController", "SimError", "SimView"]

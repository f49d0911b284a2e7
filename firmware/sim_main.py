"""Entry point of the simulated controller (`micropython sim_main.py` or `python sim_main.py`)."""

from dialbox_fw import sim

sim.main()

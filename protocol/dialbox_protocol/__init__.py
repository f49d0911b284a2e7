"""dialbox wire protocol v1: the shared codec (codec.py) and the host's typed layer."""

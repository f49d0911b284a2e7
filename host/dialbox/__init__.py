"""dialbox: the host daemon, rules engine, displays and command line."""

__version__ = "0.1.0"

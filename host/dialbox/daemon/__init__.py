"""The daemon: config file, transports, sessions and tables wired together, with reconnects."""

from dialbox.daemon.config import ConfigError, DaemonConfig, load_config
from dialbox.daemon.daemon import Daemon, settle_collector

__all__ = ["ConfigError", "Daemon", "DaemonConfig", "load_config", "settle_collector"]

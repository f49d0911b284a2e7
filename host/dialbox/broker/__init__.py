"""Mosquitto configuration for a table: per-controller users, passwords and ACLs."""

from dialbox.broker.mosquitto import BrokerFiles, hash_password, write_broker_config

__all__ = ["BrokerFiles", "hash_password", "write_broker_config"]

"""Broker configuration: Mosquitto (mosquitto.py: per-controller users, passwords and ACLs)
or a venue's clustered RabbitMQ (rabbitmq.py: per-node config and definitions with the same
rules as topic permissions; rabbit_cluster.py: a local cluster for tests and benchmarks)."""

from dialbox.broker.mosquitto import BrokerFiles, hash_password, write_broker_config

__all__ = ["BrokerFiles", "hash_password", "write_broker_config"]

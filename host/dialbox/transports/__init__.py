"""Transports: links to controllers (serial with hot-plug, MQTT, in-process), one interface."""

from dialbox.transports.base import (
    BrokerUnavailable,
    Link,
    LinkClosed,
    PortUnavailable,
    TransportError,
)

__all__ = ["BrokerUnavailable", "Link", "LinkClosed", "PortUnavailable", "TransportError"]

"""Links to the host: USB serial and WiFi/MQTT, both carrying the same frames."""

"""dialbox controller firmware: board HAL -> pure core -> transports -> app (docs/controller.md)."""

FW_VERSION = "0.1.0"

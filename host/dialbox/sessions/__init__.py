"""Device sessions: handshake, reliability, heartbeat and resume over any transport link."""

from dialbox.sessions.session import Session, SessionHost

__all__ = ["Session", "SessionHost"]

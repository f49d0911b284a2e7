"""Phones as controllers: join codes, pairing, and the WebSocket links of the phone page."""

"""Board support: hardware only (pins, PIO/PCNT encoders, button, LED, OLED, USB, WiFi)."""

import json


def load_profile(path="board.json"):
    """The board profile (one JSON file per board under firmware/boards/)."""
    with open(path) as f:
        return json.load(f)

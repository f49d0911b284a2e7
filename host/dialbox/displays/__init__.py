"""Displays: the web table screen, the LED strip and the terminal view (public state only)."""

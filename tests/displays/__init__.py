"""Tests of the displays: the table screen, the LED strip and the terminal view."""

"""Pure controller logic: no hardware imports, runs the same on MicroPython and CPython."""

"""Board entry: safe boot, or the app (dialbox_fw.hal.board.boot; docs/controller.md).

The safeboot file (written by `dialbox firmware deploy`, removed once its copy is done)
keeps the app and its watchdog off and the REPL free, whatever state the bundle is in; so
does the boot button pressed just after power-up (board.boot). Kept short: main.py is the
one file a board runs as source."""

import os

try:
    os.stat("safeboot")
    print("dialbox: safe boot (safeboot file): the app is not started")
except OSError:
    from dialbox_fw.hal import board

    board.boot()

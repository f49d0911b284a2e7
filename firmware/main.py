"""Controller entry point on a board: load the profile, build the HAL, run the app."""

import asyncio

from dialbox_fw import app
from dialbox_fw.hal import board, load_profile

hal = board.BoardHal(load_profile("board.json"))
asyncio.run(app.run(hal))

"""Debian's Chromium for the browser tests (the table screen, the phone page): where it is,
how it is started, and how long a page may take to get where a test waits for it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
PAGE_WAIT_MS = 120_000
"""The longest any wait on a page may take before the test fails (Playwright's default is
30 s). It bounds a hang, it measures nothing: on a machine also running another test worker,
drawing every state of two whole games took Chromium over 30 s."""


@contextlib.asynccontextmanager
async def chromium_context(profile: Path, **options: Any) -> AsyncIterator[Any]:
    """A headless Chromium with a fresh persistent profile and `PAGE_WAIT_MS` for every wait
    of its pages; `options` go to Playwright (viewport, touch...). Closed on leaving."""
    from playwright.async_api import async_playwright

    # Browser tests must run, never skip: without Chromium they fail and say what is missing.
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: apt-get install chromium"
    async with async_playwright() as pw:
        ctx = await pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            **options)
        ctx.set_default_timeout(PAGE_WAIT_MS)
        try:
            yield ctx
        finally:
            await ctx.close()

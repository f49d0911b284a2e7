"""Texts for a controller's OLED: its font draws printable ASCII only (32-126).

The protocol carries any Unicode inside JSON strings (escaped, so the frame stays ASCII), but
the controller's 8x8 font has no other glyphs. The host folds what it sends a controller:
accents dropped (é -> e), common signs spelled (… -> ..., — -> -, ♥ -> H), anything else "?".
The controller also shows "?" for any character outside its font (firmware core/screens.py).
"""

from __future__ import annotations

import unicodedata

_SPELLED = {
    "\u2014": "-", "\u2013": "-", "\u2212": "-", "\u2026": "...", "\u00d7": "x",
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00b7": "-",
    "\u2192": "->", "\u2190": "<-", "\u2264": "<=", "\u2265": ">=", "\u00a0": " ",
    "\u2665": "H", "\u2666": "D", "\u2660": "S", "\u2663": "C", "\u00df": "ss",
    "\u00e6": "ae", "\u00c6": "AE", "\u0153": "oe", "\u00f8": "o", "\u00d8": "O",
    "\u2713": "v", "\u2714": "v", "\u26a1": "*",
}


def oled_text(text: str) -> str:
    """`text` in the controller font's characters."""
    if text.isascii() and text.isprintable():
        return text
    out: list[str] = []
    for ch in text:
        if " " <= ch <= "~":
            out.append(ch)
        elif ch in _SPELLED:
            out.append(_SPELLED[ch])
        elif ch in "\n\t\r":
            out.append(" ")
        else:
            base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append(base if base and base.isprintable() else "?")
    return "".join(out)

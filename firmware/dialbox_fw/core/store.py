"""Where a locked selection and its nonce survive a reset, and which prompts are closed."""

import json
import os

CLOSED = 16
"""Closed prompt ids a controller remembers, across welcomes and resets: a prompt,
alllocked or revealed for one of them is old news, never asked again. A list of exactly
CLOSED ints, oldest first: a new one goes in at the end and the oldest leaves (pop(0) and
append on a list of fixed length: nothing grows)."""


class MemoryStore:
    """A store that forgets on power loss (tests, and boards without a filesystem).

    load(True) / save(pids, True): the closed prompt ids instead of the lock record."""

    def __init__(self):
        self.record = None
        self.pids = [-1] * CLOSED

    def load(self, closed=False):
        return self.pids if closed else self.record

    def save(self, record, closed=False):
        if closed:
            self.pids = record
        else:
            self.record = record

    def clear(self):
        self.record = None


class FileStore:
    """The lock record as one JSON file on flash, replaced atomically by rename; the closed
    prompt ids (load(True) / save(pids, True)) in closed.json beside it, the same way.

    record = {"pid": int, "sel": [int, int, int], "nonce": base64 text,
              "commitment": text or None, "sealed": bool,
              "commits": [[seat, commitment], ...] once alllocked gave them}
    closed = [pid, ...]: exactly CLOSED ints, oldest first (-1 = none yet)
    """

    def __init__(self, path="lock.json"):
        self.path = path
        self.cpath = path[: path.rfind("/") + 1] + "closed.json"

    def load(self, closed=False):
        try:
            with open(self.cpath if closed else self.path) as f:
                rec = json.load(f)
        except (OSError, ValueError):
            rec = None
        if closed:
            return rec if type(rec) is list and len(rec) == CLOSED else [-1] * CLOSED
        if type(rec) is not dict or type(rec.get("pid")) is not int:
            return None
        return rec

    def save(self, record, closed=False):
        path = self.cpath if closed else self.path
        with open(path + ".tmp", "w") as f:
            json.dump(record, f)
        os.rename(path + ".tmp", path)

    def clear(self):
        try:
            os.remove(self.path)
        except OSError:
            pass

"""Where a locked selection and its nonce survive a reset: a small storage interface."""

import json
import os


class MemoryStore:
    """A store that forgets on power loss (tests, and boards without a filesystem)."""

    def __init__(self):
        self.record = None

    def load(self):
        return self.record

    def save(self, record):
        self.record = record

    def clear(self):
        self.record = None


class FileStore:
    """The lock record as one JSON file on flash, replaced atomically by rename.

    record = {"pid": int, "sel": [int, int, int], "nonce": base64 text,
              "commitment": text or None, "sealed": bool}
    """

    def __init__(self, path="lock.json"):
        self.path = path
        self.tmp = path + ".tmp"

    def load(self):
        try:
            with open(self.path) as f:
                rec = json.load(f)
        except (OSError, ValueError):
            return None
        if type(rec) is not dict or type(rec.get("pid")) is not int:
            return None
        return rec

    def save(self, record):
        with open(self.tmp, "w") as f:
            json.dump(record, f)
        os.rename(self.tmp, self.path)

    def clear(self):
        try:
            os.remove(self.path)
        except OSError:
            pass

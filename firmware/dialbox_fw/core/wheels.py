"""The three wheels and their faces; turning skips the faces a prompt does not allow."""

from dialbox_protocol import codec

LEFT = 0
CENTRE = 1
RIGHT = 2
NAMES = ("L", "C", "R")


class Wheel:
    """One wheel during a prompt: its faces, the allowed mask and the face it shows.

    Disallowed faces are skipped when turning (never shown as the current face), so the
    controller can never lock an illegal face on a single wheel. An inactive wheel ignores
    turns and reports face -1.
    """

    def __init__(self, position, spec=None):
        self.position = position
        self.faces = None
        self.allowed = 0
        self.index = -1
        if spec is not None:
            faces, allowed, start = spec
            self.faces = faces if faces is not None else codec.DEFAULT_FACES[position]
            self.allowed = allowed
            self.index = start
            if not self.is_allowed(start):
                self.step(1)

    @property
    def active(self):
        return self.faces is not None

    def is_allowed(self, i):
        return (self.allowed >> i) & 1 == 1

    def step(self, detents):
        """Move by whole detents (sign = direction), skipping disallowed faces."""
        if self.faces is None or detents == 0:
            return False
        n = len(self.faces)
        d = 1 if detents > 0 else -1
        moved = False
        for _ in range(detents * d):
            i = self.index
            for _ in range(n):
                i = (i + d) % n
                if self.is_allowed(i):
                    break
            if i != self.index:
                moved = True
            self.index = i
        return moved

    def face(self):
        """The (label, value, colour) of the current face, or None when inactive."""
        if self.faces is None:
            return None
        return self.faces[self.index]

    def label(self):
        f = self.face()
        return "-" if f is None else f[0]


def from_prompt(wheels):
    """Three Wheel objects for a prompt's wheels field (already checked by the codec)."""
    return [Wheel(i, wheels[i]) for i in range(3)]


def idle_wheels():
    return [Wheel(0), Wheel(1), Wheel(2)]


def selection(wheels):
    return [w.index for w in wheels]

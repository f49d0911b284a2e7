"""Figures for the host benchmark (bench.host): percentiles, a least-squares line, and what
/proc says about a process tree (CPU seconds, RSS). No imports from dialbox: the rig and the
tests use it as it is."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path


def now() -> float:
    """Seconds on CLOCK_MONOTONIC: one clock for every process of a run (rig, parent)."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def pct(xs: list[float], p: float) -> float:
    """The p-th percentile by rank: the sorted value at index round(p/100 * (n - 1))."""
    if not xs:
        raise ValueError("no figures")
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def summary(xs: list[float]) -> dict[str, float]:
    """p50, p99 and max (ms), and n."""
    return {"p50": pct(xs, 50), "p99": pct(xs, 99), "max": max(xs), "n": len(xs)}


def fmt_ms(xs: list[float]) -> str:
    s = summary(xs)
    return (f"p50 {s['p50']:7.3f} ms  p99 {s['p99']:7.3f} ms  max {s['max']:7.3f} ms  "
            f"(n={len(xs)})")


def least_squares(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """The line y = a + b x fitted by least squares: (slope b, intercept a, standard error
    of b). The standard error is 0 for two points or a perfect fit."""
    n = len(xs)
    if n < 2 or n != len(ys):
        raise ValueError("a line needs two points or more, as many x as y")
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise ValueError("every x is the same: no slope")
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    a = my - b * mx
    if n == 2:
        return b, a, 0.0
    resid = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys, strict=True))
    return b, a, math.sqrt(resid / (n - 2) / sxx)


# ---------------------------------------------------------------- /proc

_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    """/proc/PID/stat fields after the command name: [0] is field 3 (state), [1] the ppid,
    [11] utime, [12] stime (in clock ticks)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def tree(pid: int) -> list[int]:
    """`pid` and its living descendants (the daemon's worker processes, if it has any),
    found by parent pid."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(_stat(int(entry))[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return sorted(out)


def cpu_s(pids: list[int]) -> float:
    """User + system CPU seconds used so far by these processes (all threads)."""
    total = 0
    for pid in pids:
        try:
            f = _stat(pid)
        except OSError:
            continue  # gone: its CPU is lost to the count (said by the caller)
        total += int(f[11]) + int(f[12])
    return total / _TICK


def rss_kb(pids: list[int]) -> int:
    """Resident set size (VmRSS) of these processes, summed, in KB."""
    total = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
                break
    return total

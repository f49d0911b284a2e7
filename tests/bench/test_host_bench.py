"""bench.host in every mode on a tiny size: each prints its figures and they parse. No timing
is asserted (the benchmark prints its targets as met / NOT met; a busy machine decides those),
only that figures are produced, and that the percentile and least-squares helpers compute
what they should on known data."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import bench.host as host
from bench._stats import cpu_s, least_squares, pct, rss_kb, summary, tree

ROOT = Path(__file__).resolve().parents[2]
NUM = r"([-+]?\d+(?:\.\d+)?)"
MS3 = rf"p50\s+{NUM} ms\s+p99\s+{NUM} ms\s+max\s+{NUM} ms\s+\(n=(\d+)\)"


# ---------------------------------------------------------------- helpers on known data

def test_percentiles_by_rank() -> None:
    xs = [float(x) for x in range(1, 101)]  # 1..100, shuffled order must not matter
    shuffled = xs[50:] + xs[:50]
    assert pct(shuffled, 50) == 51.0  # index round(0.5 * 99) = 50 (banker's rounding: 50)
    assert pct(shuffled, 99) == 99.0  # index round(98.01) = 98
    assert pct(shuffled, 100) == 100.0 and pct(shuffled, 0) == 1.0
    assert pct([7.0], 99) == 7.0
    s = summary([3.0, 1.0, 2.0])
    assert s == {"p50": 2.0, "p99": 3.0, "max": 3.0, "n": 3}
    with pytest.raises(ValueError):
        pct([], 50)


def test_least_squares_on_known_lines() -> None:
    xs = [0.0, 1000.0, 2000.0, 3000.0]
    slope, intercept, err = least_squares(xs, [50_000 + 0.002 * x for x in xs])
    assert slope == pytest.approx(0.002) and intercept == pytest.approx(50_000)
    assert err == pytest.approx(0.0, abs=1e-9)
    # y = 1 + 2x with residuals +1, -1, -1, +1 at x = 0..3: slope 2, intercept 1,
    # residual sum of squares 4, sxx 5: standard error sqrt(4 / 2 / 5)
    slope, intercept, err = least_squares([0.0, 1.0, 2.0, 3.0], [2.0, 2.0, 4.0, 8.0])
    assert slope == pytest.approx(2.0) and intercept == pytest.approx(1.0)
    assert err == pytest.approx((4 / 2 / 5) ** 0.5)
    with pytest.raises(ValueError):
        least_squares([1.0, 1.0], [2.0, 3.0])
    with pytest.raises(ValueError):
        least_squares([1.0], [2.0])


def test_proc_readers_on_this_process() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        pids = tree(os.getpid())
        assert os.getpid() in pids and child.pid in pids
        assert cpu_s([os.getpid()]) > 0
        assert rss_kb([os.getpid()]) > 1000
        assert rss_kb(pids) > rss_kb([os.getpid()])
        assert cpu_s([2 ** 22 + 1]) == 0 and rss_kb([2 ** 22 + 1]) == 0  # no such process
    finally:
        child.kill()
        child.wait()


def test_default_run_is_all_modes(monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m bench host` calls main() with sys.argv = ["bench.host"]: every mode runs,
    at the default sizes (the measuring parts replaced here)."""
    calls: list[Any] = []
    lat = [1.0] * 100

    async def latency(kind: str, rounds: int) -> dict[str, Any]:
        calls.append(("latency", kind, rounds))
        return {"link": host.LINKS[kind], "reveal": summary(lat), "bare": summary(lat),
                "rev": lat, "bare_ms": lat, "qos": 0, "seconds": 1.0, "cpu_ms_per_prompt": 1.0,
                "daemon_procs": 1, "load": "x"}

    async def table_run(n: int, warmup: float, seconds: float, workers: int | None,
                        sample_rss: bool, **kw: Any) -> dict[str, Any]:
        calls.append(("tables", n, warmup, seconds, workers, sample_rss, kw))
        return {"tables": n, "workers": workers, "daemon_procs": 1, "seconds": seconds,
                "think": kw.get("think", host.CAPACITY_THINK), "warm_s": warmup,
                "warm_prompts": kw.get("warm_prompts", 0), "warm_least": 1100,
                "prompts": 10, "per_table_per_s": 1.0, "lat": lat, "host_cpu": 0.1,
                "cpu_ms_per_prompt": 1.0, "rest_cpu": 0.1, "rss_kb": [1, 2, 3, 4, 5],
                "load": "x", "fit_prompts": [0, 1, 2, 3, 4], "slope_kb_per_1000": 0.5,
                "slope_err": 0.1, "kb_per_min": 0.0, "rss_by_pid": ({1: 5, 2: 7}, {1: 6, 2: 8}),
                "daemon_pid": 1}

    monkeypatch.setattr(host, "latency", latency)
    monkeypatch.setattr(host, "table_run", table_run)
    for name in ("BENCH_ROUNDS", "BENCH_SECONDS", "BENCH_WARMUP", "BENCH_RSS_TABLES",
                 "BENCH_CAPACITY_SECONDS", "BENCH_WORKERS", "BENCH_WARM_PROMPTS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "argv", ["bench.host"])
    host.main()
    kept = host.history_kept()[1]
    assert calls == [("latency", "pty", 1000), ("latency", "mqtt", 1000),
                     *[("tables", n, 5.0, 30.0, None, False, {}) for n in (10, 50, 100, 200)],
                     ("tables", 4, 10.0, 120.0, None, True,
                      {"think": host.RSS_THINK, "warm_prompts": kept + 100})]
    assert host.RSS_SECONDS >= 120
    out = capsys.readouterr().out
    assert "capacity target 200 tables x 6" in out and "RSS growth +0.500 KB" in out
    assert ": steady state" in out
    assert "by process, start -> end: supervisor 5 -> 6 KB, worker 2 7 -> 8 KB" in out
    calls.clear()
    monkeypatch.setenv("BENCH_WORKERS", "2")
    host.main(["capacity", "3", "4"])
    assert [c[1] for c in calls] == [3, 4] and all(c[4] == 2 for c in calls)


# ---------------------------------------------------------------- every mode, tiny

def _run(args: list[str], **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "bench.host", *args], cwd=ROOT,
                            env={**os.environ, **env}, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def _finish(p: subprocess.Popen[str]) -> str:
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 0, out
    return out


@pytest.mark.skipif(not Path("/usr/sbin/mosquitto").exists(), reason="needs Mosquitto")
def _assert_hops(out: str, link: str, longest: float) -> None:
    """Four p50 / p99 pairs; a hop is part of its reveal, so none is longer than the longest
    reveal."""
    where = re.search(rf"^  {re.escape(link)}\s*where the reveal's time went, p50 / p99: (.*)$",
                      out, re.M)
    assert where, out
    pairs = [(float(a), float(b)) for a, b in re.findall(rf"{NUM} / {NUM} ms",
                                                            where.group(1))]
    assert len(pairs) == 4, where.group(1)
    assert all(0 <= a <= b <= longest + 0.01 for a, b in pairs), (pairs, out)


def test_every_mode_prints_its_figures() -> None:
    # all at once: each is mostly start-up and waiting
    pty = _run(["latency", "pty"], BENCH_ROUNDS="10")
    mqtt = _run(["latency", "mqtt"], BENCH_ROUNDS="10")
    # one daemon process each (not a supervisor and its workers): fewer processes to start
    capacity = _run(["capacity", "2", "--workers", "1"], BENCH_CAPACITY_SECONDS="3",
                    BENCH_WARMUP="0.5")
    rss = _run(["rss", "2"], BENCH_SECONDS="3", BENCH_WARMUP="0.5", BENCH_WARM_PROMPTS="3",
               BENCH_WORKERS="1")
    outs = {"pty serial": _finish(pty), "mosquitto": _finish(mqtt),
            "capacity": _finish(capacity), "rss": _finish(rss)}
    for out in outs.values():
        assert re.search(r"load \d+\.\d+ \d+\.\d+ \d+\.\d+ \(1/5/15 min\) on \d+ CPUs", out)

    for link in ("pty serial", "mosquitto"):
        out = outs[link]
        bare = re.search(rf"^  {link}\s+bare RTT\s+{MS3}$", out, re.M)
        rev = re.search(rf"^  {link}\s+reveal\s+{MS3}$", out, re.M)
        assert bare and rev, out
        assert int(bare.group(4)) == 10 * host.BARE_PER_ROUND and int(rev.group(4)) == 10
        b50, b99, bmax = (float(bare.group(i)) for i in (1, 2, 3))
        r50, r99, rmax = (float(rev.group(i)) for i in (1, 2, 3))
        assert 0 < b50 <= b99 <= bmax and 0 < r50 <= r99 <= rmax
        assert re.search(rf"^  {link}\s+reveal / bare RTT \(same run\): p50 {NUM}x  p99 "
                         rf"{NUM}x$", out, re.M), out
        assert re.search(rf"^  {link}\s+host CPU {NUM} ms per prompt", out, re.M), out
        target = re.search(rf"^  {link}\s+target reveal p99 {NUM} ms <= 2 x bare RTT p99 \+ "
                           rf"2 ms = {NUM} ms: (met|NOT met)$", out, re.M)
        assert target, out
        assert float(target.group(1)) == pytest.approx(r99, abs=0.001)
        assert float(target.group(2)) == pytest.approx(2 * b99 + 2, abs=0.002)
        _assert_hops(out, link, rmax)

    out = outs["capacity"]
    row = re.search(rf"^capacity\s+2 tables x 6:\s+(\d+) prompts in {NUM} s, {NUM} "
                    rf"prompts/s/table, reveal p50\s+{NUM} ms p99\s+{NUM} ms max\s+{NUM} ms; "
                    rf"host CPU\s+{NUM}% = {NUM} ms/prompt \(target <= 1.5 ms: (?:met|NOT met)"
                    rf"\), host RSS {NUM} MB .*controllers \+ broker\s+{NUM}% of", out, re.M)
    assert row, out
    assert "(1 daemon process(es), --workers 1)" in out, out
    assert int(row.group(1)) > 0 and float(row.group(3)) > 0
    assert 0 < float(row.group(4)) <= float(row.group(5)) <= float(row.group(6))
    assert float(row.group(8)) > 0 and float(row.group(9)) > 10
    # the reveal's time by hop: four p50 / p99 pairs; a hop is part of its reveal, so no
    # hop is longer than the longest reveal
    _assert_hops(out, "", float(row.group(6)))

    out = outs["rss"]
    head = re.search(rf"^rss 2 tables x 6, controllers locking {NUM}-{NUM} s after each "
                     rf"prompt: warm-up \d+ s, until every table had played 3 prompts; then "
                     rf"(\d+) samples over {NUM} s, (\d+) prompts", out, re.M)
    assert head and int(head.group(3)) >= 3 and int(head.group(5)) > 0, out
    assert "per table: NOT a steady state" in out  # 3 prompts are fewer than the daemon keeps
    assert re.search(r"^  host RSS (\d+) KB at start, (\d+) KB at end \(.*1 daemon process",
                     out, re.M), out
    growth = re.search(rf"^  RSS growth {NUM} KB per 1,000 prompts \(least squares over the "
                       rf"(\d+) samples, standard error {NUM}\); target < 1 KB per 1,000 "
                       rf"prompts: (met|NOT met)$", out, re.M)
    assert growth, out
    assert re.search(rf"^  against time: {NUM} KB per minute$", out, re.M), out
    assert re.search(r"^targets \(", out, re.M)

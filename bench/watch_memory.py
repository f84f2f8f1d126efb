"""What a long `steth watch` keeps of each cycle: memory in use after N cycles, per cycle.

    .venv/bin/python bench/watch_memory.py               # 20 warm-up cycles, then 100
    .venv/bin/python bench/watch_memory.py --cycles 300

A real Prometheus (tests/live/promserver.py, the `prometheus` binary) serves the recorded
incident of tests/live (fixtures/series); one Watcher runs its cycles alternately at the
incident's time and after its recovery (every finding opens and closes), and renders its
exposition each cycle, as `steth watch` does. Printed per cycle, after the warm-up: glibc's
malloc heap in use (``mallinfo2().uordblks``: C memory, durable-rules' included, and Python's
large objects), Python's own allocations (tracemalloc: the reference, what Python code keeps),
and the process' RSS (which also moves with fragmentation). A cycle that keeps nothing shows
0 kB in all three; the largest tracemalloc sites are listed.
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import sys
import tempfile
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "live"))


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]


def _heap_kb() -> float:
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    return libc.mallinfo2().uordblks / 1024


def _rss_kb() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4096 / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warm", type=int, default=20, help="cycles before measuring (default 20)")
    ap.add_argument("--cycles", type=int, default=100, help="cycles measured (default 100)")
    args = ap.parse_args()

    from conftest import INCIDENT_AT, RECOVERED_AT
    from prometheus_client import generate_latest
    from promserver import PromServer, build_tsdb

    from stethoscope.engine.live.watch import Watcher

    folder = Path(tempfile.mkdtemp(prefix="steth-watch-memory-"))
    server = PromServer(build_tsdb(folder), folder)
    server.wait_ready()
    try:
        w = Watcher(server.url, window_s=1800, timeout=5)

        def cycle(i: int) -> None:
            w.run_once(at=(INCIDENT_AT, RECOVERED_AT)[i % 2])
            generate_latest(w.registry)

        for i in range(args.warm):
            cycle(i)
        gc.collect()
        tracemalloc.start()
        heap0, rss0, py0 = _heap_kb(), _rss_kb(), tracemalloc.get_traced_memory()[0]
        for i in range(args.cycles):
            cycle(i)
        gc.collect()
        n = args.cycles
        heap, rss, py = _heap_kb() - heap0, _rss_kb() - rss0, (tracemalloc.get_traced_memory()[0] - py0) / 1024
        print(f"{n} cycles after {args.warm}: kept a cycle: malloc heap in use {heap / n:.1f} kB, "
              f"Python (tracemalloc, the reference) {py / n:.1f} kB, RSS {rss / n:.1f} kB")
        print(f"at 2 cycles a minute for a day (2,880): heap +{heap / n * 2880 / 1024:.0f} MB, "
              f"RSS +{rss / n * 2880 / 1024:.0f} MB")
        for st in tracemalloc.take_snapshot().statistics("lineno")[:5]:
            print("  ", st)
    finally:
        server.stop()


if __name__ == "__main__":
    main()

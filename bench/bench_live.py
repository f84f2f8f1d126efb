"""Benchmark ``steth diagnose --prometheus`` on a recorded fleet against one fleet-wide query.

    .venv/bin/python bench/bench_live.py                   # 1,024 nodes x 8 GPUs, 2 h at 15 s
    .venv/bin/python bench/bench_live.py --nodes 64        # a smaller fleet
    .venv/bin/python bench/bench_live.py --label baseline  # names the row

1. bench/live_fleet.py writes the fleet as OpenMetrics (dcgm-exporter and node_exporter
   series, three planted faults); ``promtool tsdb create-blocks-from openmetrics`` imports it
   into a TSDB folder, kept under ``--cache`` (default ``/tmp/steth-bench-live``) for the next run.
2. A real Prometheus (the ``prometheus`` binary, tests/live/promserver.py) serves it on 127.0.0.1.
3. The reference: ``max_over_time(DCGM_FI_DEV_GPU_TEMP[2h])`` over the fleet, the answer read
   in full; the median of three after one warm-up.
4. ``steth diagnose --prometheus URL --at END --format json`` with default options, in a fresh
   subprocess through a launcher that reports its peak RSS (as bench/bench_diagnose.py); the
   queries and the bytes answered are Prometheus' own counters
   (``prometheus_http_requests_total``, ``prometheus_http_response_size_bytes_sum`` of the
   query handlers) read before and after.
5. One row: wall time, ratio to the reference, queries, MB answered, peak RSS, verdict, the
   planted faults found and anything else blamed.

Target (issue 14): the planted faults and nothing else, <= 40 queries, <= 15x the reference,
<= 1 GB peak RSS.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "live"))
import live_fleet  # noqa: E402
from promserver import PromServer  # noqa: E402

TARGET = "target (issue 14): planted faults and nothing else, <= 40 queries, <= 15x reference, <= 1 GB peak RSS"
REFERENCE = "max_over_time(DCGM_FI_DEV_GPU_TEMP[2h])"
LAUNCHER = r"""
import json, resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
with open(out, "wb") as f:
    rc = subprocess.call(cmd, stdout=f)
wall = time.perf_counter() - t0
print(json.dumps({"rc": rc, "wall": wall, "maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""
HANDLERS = ("/api/v1/query", "/api/v1/query_range", "/api/v1/label/:name/values", "/api/v1/series")


def ensure_tsdb(cache: Path, n_nodes: int) -> Path:
    folder = cache / f"fleet-{n_nodes}"
    data = folder / "data"
    if (folder / "done").exists():
        return data
    folder.mkdir(parents=True, exist_ok=True)
    om = folder / "fleet.om"
    t0 = time.perf_counter()
    live_fleet.write(om, n_nodes)
    print(f"wrote {om} ({om.stat().st_size / 1e9:.1f} GB) in {time.perf_counter() - t0:.0f} s", flush=True)
    subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", str(om), str(data)],
                   check=True, capture_output=True)
    om.unlink()
    (folder / "done").write_text(str(n_nodes))
    print(f"imported into {data} in {time.perf_counter() - t0:.0f} s", flush=True)
    return data


def query(url: str, expr: str, at: float) -> tuple[float, int, int]:
    """Seconds, answer bytes and rows of one instant query."""
    q = urllib.parse.urlencode({"query": expr, "time": f"{at:.3f}"})
    t0 = time.perf_counter()
    with urllib.request.urlopen(f"{url}/api/v1/query?{q}", timeout=600) as r:
        body = r.read()
    wall = time.perf_counter() - t0
    doc = json.loads(body)
    if doc.get("status") != "success":
        raise RuntimeError(f"{expr}: {doc}")
    return wall, len(body), len(doc["data"]["result"])


def server_counters(url: str) -> tuple[float, float]:
    """Queries answered and bytes sent by the query handlers so far (Prometheus' own metrics)."""
    text = urllib.request.urlopen(f"{url}/metrics", timeout=30).read().decode()
    n = size = 0.0
    for line in text.splitlines():
        if not any(f'handler="{h}"' in line for h in HANDLERS):
            continue
        name, _, value = line.rpartition(" ")
        if name.startswith("prometheus_http_requests_total{"):
            n += float(value)
        elif name.startswith("prometheus_http_response_size_bytes_sum{"):
            size += float(value)
    return n, size


def steth_command() -> list[str]:
    exe = Path(sys.executable).with_name("steth")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "stethoscope.cli.main"]


def run_steth(url: str, at: float, workdir: Path, extra: list[str]) -> tuple[dict, dict]:
    out = workdir / "report.json"
    cmd = [*steth_command(), "diagnose", "--prometheus", url, "--at", str(int(at)), "--format", "json", *extra]
    res = subprocess.run([sys.executable, "-c", LAUNCHER, str(out), *cmd], capture_output=True, text=True, check=True)
    m = json.loads(res.stdout.strip().splitlines()[-1])
    try:
        report = json.loads(out.read_text())
    except ValueError:
        report = {"verdict": f"no report (exit {m['rc']})", "findings": []}
    return m, report


def blamed(report: dict) -> set[tuple]:
    out = set()
    for f in report.get("findings", []):
        e = f.get("entity") or {}
        out.add((f.get("cause"), e.get("node"), e.get("gpu") or e.get("hca")))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1024)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/steth-bench-live"))
    ap.add_argument("--label", default="")
    ap.add_argument("--steth-arg", action="append", default=[], help="extra option for steth diagnose (default: none)")
    a = ap.parse_args()

    data = ensure_tsdb(a.cache, a.nodes)
    work = a.cache / "run"
    work.mkdir(parents=True, exist_ok=True)
    server = PromServer(data, work)
    try:
        server.wait_ready(timeout=300)
        at = live_fleet.T0 + live_fleet.DURATION
        for _ in range(120):  # warm-up (the blocks into the page cache); 503 while the TSDB still opens
            try:
                query(server.url, REFERENCE, at)
                break
            except urllib.error.HTTPError as exc:
                if exc.code != 503:
                    raise
                time.sleep(1)
        refs = [query(server.url, REFERENCE, at) for _ in range(3)]
        ref_s = statistics.median(r[0] for r in refs)
        n0, b0 = server_counters(server.url)
        m, report = run_steth(server.url, at, work, a.steth_arg)
        n1, b1 = server_counters(server.url)
    finally:
        server.stop()
    got = blamed(report)
    found = sorted(live_fleet.PLANTED & got)
    other = sorted(got - live_fleet.PLANTED)
    queries = int(n1 - n0)
    print(f"fleet: {a.nodes} nodes x 8 GPUs, 2 h at {live_fleet.STEP} s; reference {REFERENCE}: "
          f"{ref_s:.3f} s, {refs[0][1] / 1e6:.2f} MB, {refs[0][2]} series")
    print(f"{'label':10} {'steth s':>8} {'ratio':>7} {'queries':>7} {'MB':>8} {'peak MB':>8}  verdict       planted found   blamed else")
    print(f"{a.label or '-':10} {m['wall']:8.2f} {m['wall'] / ref_s:6.1f}x {queries:7d} {(b1 - b0) / 1e6:8.2f} "
          f"{m['maxrss_kb'] / 1024:8.0f}  {report.get('verdict', '?'):12}  {len(found)}/{len(live_fleet.PLANTED)}"
          f"{'':13}{len(other)}")
    for f in found:
        print(f"  found:  {f}")
    for f in sorted(live_fleet.PLANTED - got):
        print(f"  MISSED: {f}")
    for f in other[:20]:
        print(f"  ELSE:   {f}")
    if len(other) > 20:
        print(f"  ... and {len(other) - 20} more")
    if report.get("reason"):
        print(f"  reason: {report['reason']}")
    print(TARGET)


if __name__ == "__main__":
    main()

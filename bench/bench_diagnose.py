"""Benchmark ``steth diagnose`` on synthetic N-node bundles against ``grep -rcE`` over the same files.

For each size: write an N-node, 8-GPU-per-node bundle (bench/synth_bundle.py, built from the
real captures in fixtures/), time ``grep -rcE PATTERN DIR`` as the floor any log tool is
compared with, then run ``steth diagnose --from-logs DIR --format json`` in a fresh
subprocess and record its wall time and peak RSS. The figures are printed as one table.

    .venv/bin/python bench/bench_diagnose.py                       # 64 nodes
    .venv/bin/python bench/bench_diagnose.py --sizes 16,64,256
    .venv/bin/python bench/bench_diagnose.py --nodes 64 --profile  # + cProfile of diagnose_bundle

Peak RSS: each measured run goes through a tiny launcher process that starts ``steth`` and
reports its own ``getrusage(RUSAGE_CHILDREN).ru_maxrss``; the launcher has only that one
child, so the figure is the peak of that single run and not a maximum over earlier runs.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth_bundle import load_templates, make_bundle  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GREP_PATTERN = r"NVRM: Xid|NCCL WARN|Bootstrap|#wrong|Avg bus bandwidth|Clocks Event Reasons"
TARGET = "target (issue 12): <= 10x grep at 1,024 nodes, <= 1 GB peak, time(1024)/time(128) <= 9, the planted fault on top and nothing else blamed"

# Runs one command, its stdout to a file; prints wall seconds and the child's peak RSS.
# A fresh launcher per run keeps RUSAGE_CHILDREN to that one child.
LAUNCHER = r"""
import json, resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
with open(out, "wb") as f:
    rc = subprocess.call(cmd, stdout=f)
wall = time.perf_counter() - t0
print(json.dumps({"rc": rc, "wall": wall, "maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


@dataclass
class Row:
    nodes: int
    files: int
    mb: float
    diagnose_s: float
    grep_s: float
    peak_mb: float
    facts: int | str
    findings: int | str
    verdict: str
    grep_hits: int
    blamed_ok: bool = True  # serious findings name only nodes given a planted Xid
    blamed: str = ""

    @property
    def ratio(self) -> float:
        return self.diagnose_s / self.grep_s if self.grep_s else float("inf")


def steth_command() -> list[str]:
    exe = Path(sys.executable).with_name("steth")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "stethoscope.cli.main"]


def steth_env(workdir: Path) -> dict[str, str]:
    """The environment steth runs in: as installed, its modules' bytecode cached (pip compiles it at
    install time). A shell with PYTHONDONTWRITEBYTECODE set (this VM's) would make every run compile
    the project's ~600 modules from source again (~1 CPU s of each start-up); the cache goes to a
    folder of the bench's own (PYTHONPYCACHEPREFIX), written by the first, start-up run."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
    return env


def run_diagnose(bundle: Path, workdir: Path) -> tuple[float, float, dict]:
    """Wall seconds, peak RSS in MB and the JSON report of one ``steth diagnose`` run."""
    out = workdir / "report.json"
    cmd = [*steth_command(), "diagnose", "--from-logs", str(bundle), "--format", "json"]
    res = subprocess.run([sys.executable, "-c", LAUNCHER, str(out), *cmd], capture_output=True, text=True, check=True,
                         env=steth_env(workdir))
    m = json.loads(res.stdout)
    if m["rc"] not in (0, 1, 2):  # 3 = bad input or internal error: no report to read
        sys.exit(f"steth diagnose exited {m['rc']}:\n{res.stderr}")
    report = json.loads(out.read_text())
    return m["wall"], m["maxrss_kb"] / 1024, report


def run_grep(bundle: Path) -> tuple[float, int]:
    t0 = time.perf_counter()
    res = subprocess.run(["grep", "-rcE", GREP_PATTERN, str(bundle)], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if res.returncode > 1:
        sys.exit(f"grep failed: {res.stderr}")
    hits = sum(int(ln.rsplit(":", 1)[1]) for ln in res.stdout.splitlines() if ln)
    return wall, hits


def measure(nodes: int, base: Path, args: argparse.Namespace, templates) -> Row:
    bundle = base / f"bundle-{nodes}"
    if bundle.exists():
        shutil.rmtree(bundle)
    t0 = time.perf_counter()
    info = make_bundle(bundle, nodes, seed=args.seed, xid_fraction=args.xid_fraction, dmesg_lines=args.dmesg_lines, templates=templates)
    print(f"  {nodes} nodes: wrote {info.files} files, {info.bytes / 1e6:.1f} MB in {time.perf_counter() - t0:.1f} s; "
          f"Xid on {len(info.xid_nodes)} node(s)", file=sys.stderr, flush=True)
    os.sync()  # the bundle's 1.3 GB of dirty pages written back before any timing, not during steth's run
    grep_runs = [run_grep(bundle) for _ in range(args.repeat)]
    diag_runs = [run_diagnose(bundle, base) for _ in range(args.repeat)]
    grep_s, hits = min(grep_runs)
    diag_s = min(r[0] for r in diag_runs)
    peak = max(r[1] for r in diag_runs)
    report = diag_runs[-1][2]
    serious = [f for f in report.get("findings", []) if f.get("severity") in ("warning", "critical", "fatal")]
    blamed = sorted({(f.get("entity") or {}).get("node") or "?" for f in serious})
    ok = bool(serious) and set(blamed) <= set(info.xid_nodes) and (serious[0].get("entity") or {}).get("node") in info.xid_nodes
    return Row(nodes, info.files, info.bytes / 1e6, diag_s, grep_s, peak, report.get("facts", "?"),
               len(report.get("findings", [])), report.get("verdict", "?"), hits, ok,
               f"planted {len(info.xid_nodes)}, blamed {len(blamed)}" + ("" if ok else f" ({', '.join(blamed[:6])})"))


def print_table(rows: list[Row], startup: tuple[float, float, float] | None) -> None:
    head = (f"{'nodes':>6} {'files':>7} {'MB':>8} {'diagnose s':>11} {'grep s':>8} {'ratio':>7} {'peak MB':>8} {'facts':>9} "
            f"{'findings':>9}  verdict  planted fault")
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r.nodes:>6} {r.files:>7} {r.mb:>8.1f} {r.diagnose_s:>11.2f} {r.grep_s:>8.3f} {r.ratio:>6.0f}x {r.peak_mb:>8.0f} "
              f"{r.facts:>9} {r.findings:>9}  {r.verdict:<7}  {'top, nothing else blamed' if r.blamed_ok else 'MISSED'}: {r.blamed}")
    if len(rows) > 1:
        lo, hi = rows[0], rows[-1]
        print(f"time({hi.nodes})/time({lo.nodes}) = {hi.diagnose_s / lo.diagnose_s:.1f} for {hi.nodes / lo.nodes:.0f}x the nodes")
    if startup:
        print(f"(steth start-up on the 2-GPU fixture bundle: {startup[0]:.2f} s, {startup[1]:.0f} MB peak; "
              f"included in 'diagnose s' above; {startup[2]:.2f} s the first run, which compiled the bytecode)")
    print(f"grep: grep -rcE '{GREP_PATTERN}' DIR")
    print(TARGET)


def facts_by_kind(bundle: Path, top: int) -> None:
    """Facts the parsers and summaries make, by kind, and how many of each durable would see
    (the prefilter of engine/ruleengine/session.py: facts some rule pattern's constant tests accept)."""
    from collections import Counter

    from stethoscope.engine.pipeline import diagnose_bundle  # noqa: F401 - same imports as a run
    from stethoscope.engine.pipeline import parse_artefacts
    from stethoscope.engine.ruleengine.loader import load_rules
    from stethoscope.engine.ruleengine.session import can_bind, literal_tests
    from stethoscope.facts.bundle import iter_artefacts, read_bundle

    raw = read_bundle(bundle)
    obs = parse_artefacts(iter_artefacts(raw, [], release=True), jobs=1)
    lit = literal_tests(load_rules().rules)
    made, bound = Counter(), Counter()
    for f in obs.facts:
        made[f.kind] += 1
        if f.kind in lit and can_bind(lit[f.kind], f.rule_view()):
            bound[f.kind] += 1
    print(f"\nfacts of {bundle.name}: {sum(made.values())} made, {sum(bound.values())} can bind a rule pattern "
          f"({len(made)} kinds; top {top}):")
    print(f"  {'kind':<34} {'made':>8} {'to rules':>9}")
    for kind, n in made.most_common(top):
        print(f"  {kind:<34} {n:>8} {bound[kind]:>9}")


def profile(bundle: Path, top: int) -> None:
    """diagnose_bundle in this process under cProfile; rules are loaded inside the profile too."""
    from stethoscope.engine.pipeline import diagnose_bundle
    from stethoscope.engine.ruleengine.loader import load_rules

    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    report = diagnose_bundle(bundle, load_rules())
    prof.disable()
    wall = time.perf_counter() - t0
    print(f"\ncProfile of diagnose_bundle({bundle.name}): {wall:.2f} s under the profiler, "
          f"{report.facts} facts, {len(report.findings)} findings")
    for key in ("cumulative", "tottime"):
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).strip_dirs().sort_stats(key).print_stats(top if key == "cumulative" else 15)
        text = buf.getvalue()
        print(f"\n-- top {top if key == 'cumulative' else 15} by {key} --")
        print(text[text.index("   ncalls"):].rstrip())


def live(nodes: int) -> None:
    """The live path in the same run: ``steth diagnose --prometheus`` on a recorded fleet against
    one fleet-wide query (bench/bench_live.py, its own table); needs Debian's prometheus and promtool."""
    if not (shutil.which("prometheus") and shutil.which("promtool")):
        print("\nlive path: not measured (prometheus/promtool not installed: tests/setup_venv.sh installs them)")
        return
    print(f"\nlive path (bench/bench_live.py --nodes {nodes}):", flush=True)
    subprocess.run([sys.executable, str(ROOT / "bench" / "bench_live.py"), "--nodes", str(nodes)], check=False)


def main() -> None:
    ap = argparse.ArgumentParser(description="Time steth diagnose against grep on synthetic N-node bundles.")
    ap.add_argument("--nodes", type=int, help="one bundle size in nodes (default: --sizes)")
    ap.add_argument("--sizes", default="128,256,1024", help="sizes, comma-separated (default 128,256,1024)")
    ap.add_argument("--facts", action="store_true", help="also count facts by kind (in-process) on the smallest size")
    ap.add_argument("--repeat", type=int, default=1, help="runs per size; the fastest is reported (default 1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--xid-fraction", type=float, default=0.03, help="share of nodes given an Xid in dmesg (default 0.03)")
    ap.add_argument("--dmesg-lines", type=int, default=2000, help="boot-noise lines per dmesg (default 2000)")
    ap.add_argument("--profile", action="store_true", help="also profile diagnose_bundle in-process on the largest size")
    ap.add_argument("--profile-only", action="store_true", help="skip the subprocess measurements, only profile")
    ap.add_argument("--top", type=int, default=25, help="profile entries to print (default 25)")
    ap.add_argument("--keep", type=Path, help="write bundles here and keep them (default: a temp dir, removed)")
    ap.add_argument("--live-nodes", type=int, default=1024,
                    help="then the live path: bench/bench_live.py on a recorded fleet of this many nodes (default 1024)")
    ap.add_argument("--no-live", action="store_true", help="skip the live path")
    args = ap.parse_args()
    sizes = [args.nodes] if args.nodes else [int(s) for s in args.sizes.split(",")]

    base = args.keep or Path(tempfile.mkdtemp(prefix="steth-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        templates = load_templates()
        rows: list[Row] = []
        startup = None
        if not args.profile_only:
            cold, _, _ = run_diagnose(ROOT / "fixtures/bundles/h200-healthy/bundle", base)  # writes the bytecode
            s_wall, s_peak, _ = run_diagnose(ROOT / "fixtures/bundles/h200-healthy/bundle", base)
            startup = (s_wall, s_peak, cold)
            for n in sizes:
                rows.append(measure(n, base, args, templates))
            print_table(rows, startup)
            if not args.no_live:
                live(args.live_nodes)
        if args.facts:
            n = min(sizes)
            bundle = base / f"bundle-{n}"
            if not bundle.exists():
                make_bundle(bundle, n, seed=args.seed, xid_fraction=args.xid_fraction, dmesg_lines=args.dmesg_lines, templates=templates)
            facts_by_kind(bundle, args.top)
        if args.profile or args.profile_only:
            n = max(sizes)
            bundle = base / f"bundle-{n}"
            if not bundle.exists():
                make_bundle(bundle, n, seed=args.seed, xid_fraction=args.xid_fraction, dmesg_lines=args.dmesg_lines, templates=templates)
            profile(bundle, args.top)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()

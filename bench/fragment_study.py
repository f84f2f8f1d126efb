#!/usr/bin/env python3
"""Fragment study: is the key line alone enough? (issue 11, "read what people actually paste")

People often paste only the line or two that matter into a ticket: an NCCL WARN line without its
prefix, one ``NVRM: Xid`` line, an ``nvidia-smi -q`` key line without its section header, one
traceback line, a ``dcgmi`` row. Every harvested case's ``label.yaml`` lists 1-3 ``evidence`` lines
copied verbatim from its artefacts: the lines that establish the cause. For every faulty case,
ONLY those lines are written, joined, to one neutrally named file (``paste.txt``) in a scratch
folder and diagnosed as ``steth diagnose --from-logs DIR --format json`` would, in three variants:

- ``as posted``: the evidence lines verbatim;
- ``retyped``: each line stripped of its leading blanks, quote marks and any timestamp / host /
  process prefix (what a person retypes: ``NCCL WARN ...`` without ``host:pid:tid [dev] file:line``
  stays, the stamp and host go);
- ``fenced``: the verbatim lines inside a markdown code fence;
- and each line of a case's 2-3 evidence lines alone: its verdict (never ``healthy``).

Each variant is scored as ``bench/score_harvest.py`` scores a whole case (its accept.yaml logic,
imported): cause top-1, component top-1, how many came out ``healthy`` (must be 0: a pasted error
line is never healthy) and how many left the file unrecognised.

    .venv/bin/python bench/fragment_study.py                   # every faulty case, in-process
    .venv/bin/python bench/fragment_study.py --cases '^1[0-4]' # some cases
    .venv/bin/python bench/fragment_study.py --steth .venv/bin/steth   # through the CLI (slower)

A benchmark script (it prints figures), not a test; it reads only the project's own fixtures.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import yaml  # noqa: E402

from score_harvest import HARVEST, NOT_ARTEFACTS, run_steth, score_case, unrecognised_count  # noqa: E402

# What a person leaves out when retyping a line: each pattern eats one prefix at the start of the
# line, and they are tried again until none matches (a syslog stamp, then the kernel's time, ...).
_RETYPE_PREFIXES = [
    re.compile(p) for p in (
        r"\s+",                                                          # indentation
        r"(?:>\s?)+",                                                    # markdown quotes
        r"\*\*|`",                                                       # markdown bold, backtick
        r"\[\s*[+]?\d+\.\d+\]\s*",                                       # [  219.470994] [  +0.000004]
        r"\[(?:\w{3} )?\w{3}\s+\d+ [\d:]+(?: \d{4})?\]\s*",              # [Fri Feb 12 11:47:20 2021]
        r"\[\d{4}-\d\d-\d\d[ T][\d:.,]+\]\s*",                           # [2026-04-22 21:34:20]
        r"\d{4}-\d\d-\d\d[ T][\d:.,]+Z?:?\s+",                           # 2020-06-11 12:33:17.831797:
        r"\w{3}\s+\d+ [\d:]+ [\w.-]+ [\w./-]+(?:\[\d+\])?:\s*",          # Aug 26 14:08:07 host kernel:
        r"[\w.-]+:\d+:\d+ \[\d+\] ",                                     # NCCL's host:pid:tid [dev]
        r"\[\d+\] ",                                                     # [1] (a device index alone)
        r"\[rank\d+\]:\s*",                                              # PyTorch's [rankN]:
        r"\(\w+ pid=\d+\) ",                                             # Ray / vLLM worker tag
        r"(?:ERROR|WARNING|INFO) \d\d-\d\d [\d:]+ (?:\[[\w.]+:\d+\]|[\w.]+:\d+\]) ",  # vLLM logger
        r"[\w-]+ \| \d{4}/\d\d/\d\d [\d:]+ ",                           # nvidia-docker | 2017/12/21 ..
        r"kernel: ",                                                     # a bare journald tag
    )
]


def retype(line: str) -> str:
    """The line as a person retypes it: no indentation, quote marks, stamp, host or process tag."""
    changed = True
    while changed:
        changed = False
        for pat in _RETYPE_PREFIXES:
            m = pat.match(line)
            if m and m.end() < len(line):
                line, changed = line[m.end():], True
    return line.rstrip("*` ")


VARIANTS: dict[str, Callable[[list[str]], str]] = {
    "as posted": lambda lines: "\n".join(lines) + "\n",
    "retyped": lambda lines: "\n".join(retype(ln) for ln in lines) + "\n",
    "fenced": lambda lines: "```\n" + "\n".join(lines) + "\n```\n",
}


def diagnose_in_process(case_dir: Path, ruleset) -> dict:
    """The report ``steth diagnose --from-logs DIR --format json`` prints for a case's artefacts
    (copied as score_harvest's run_steth copies them), as a dict."""
    from stethoscope.engine.pipeline import diagnose, observe_bundle

    with tempfile.TemporaryDirectory(prefix="tmp-fragment-case-") as tmp:
        for src in sorted(case_dir.rglob("*")):
            rel = src.relative_to(case_dir)
            if src.is_file() and not (len(rel.parts) == 1 and rel.name in NOT_ARTEFACTS):
                dst = Path(tmp) / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.write_bytes(src.read_bytes())
        rep = diagnose(observe_bundle(tmp, 1, ruleset=ruleset), ruleset)
    return json.loads(rep.model_dump_json(exclude_none=True))


def study_case(text: str, run: Callable[[Path], tuple[dict, str]]) -> tuple[dict, str]:
    with tempfile.TemporaryDirectory(prefix="tmp-fragment-") as tmp:
        case = Path(tmp) / "case"  # a case folder as score_harvest's run_steth copies it
        case.mkdir()
        (case / "paste.txt").write_text(text, encoding="utf-8")
        return run(case)


def count(t: dict, row: dict, report: dict, err: str) -> dict:
    """Add one scored report to its variant's tally; the row, with healthy and unrec, back."""
    row["healthy"] = report.get("verdict") == "healthy"
    row["unrec"] = unrecognised_count(report) > 0
    t["n"] += 1
    for key, val in (("cause", row["cause"]), ("component", row["component"]), ("healthy", row["healthy"]),
                     ("unrecognised", row["unrec"]), ("errors", bool(err))):
        t[key] += val
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="", help="only cases whose folder name matches this regex")
    ap.add_argument("--only", default="", help="only these variants (comma-separated substrings)")
    ap.add_argument("--steth", default="", help="run this steth executable instead of in-process")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--no-whole", action="store_true", help="skip the reference run of each whole case")
    ap.add_argument("--no-lines", action="store_true", help="skip each evidence line alone")
    ap.add_argument("-q", "--quiet", action="store_true", help="no list of misses")
    args = ap.parse_args()
    accept = yaml.safe_load((HARVEST / "accept.yaml").read_text())
    if args.steth:
        def run(case: Path) -> tuple[dict, str]:
            return run_steth(args.steth, case, args.timeout)
    else:
        from stethoscope.engine.ruleengine.loader import load_rules

        ruleset = load_rules()

        def run(case: Path) -> tuple[dict, str]:
            return diagnose_in_process(case, ruleset), ""

    variants = {k: v for k, v in VARIANTS.items()
                if not args.only or any(o.strip() in k for o in args.only.split(","))}
    tally = {k: {"n": 0, "cause": 0, "component": 0, "healthy": 0, "unrecognised": 0, "errors": 0}
             for k in variants}
    misses: list[str] = []
    lone: dict[str, int] = {}  # verdicts of each line of a case's evidence alone
    lone_healthy: list[str] = []
    started = time.time()
    for case_dir in sorted((HARVEST / "cases").iterdir()):
        label_path = case_dir / "label.yaml"
        if not label_path.is_file() or (args.cases and not re.search(args.cases, case_dir.name)):
            continue
        label = yaml.safe_load(label_path.read_text())
        if label["category"] == "healthy" or not label.get("evidence"):
            continue
        lines = [str(e).rstrip("\n") for e in label["evidence"]]
        whole = ""
        if not args.no_whole:  # the reference: the whole case, as score_harvest.py scores it
            report, err = run(case_dir)
            row = count(tally.setdefault("whole case", dict.fromkeys(tally[next(iter(tally))], 0)),
                        score_case(label, report, accept), report, err)
            whole = " | whole case: " + ("hit" if row["cause"] and row["component"] else row["top"])
        if len(lines) > 1 and not args.no_lines:  # each line alone: a verdict, never healthy
            for ln in lines:
                report, err = study_case(ln + "\n", run)
                lone[report.get("verdict", "?")] = lone.get(report.get("verdict", "?"), 0) + 1
                if report.get("verdict") == "healthy":
                    lone_healthy.append(f"{case_dir.name[:4]} {ln.strip()[:110]}")
        for name, make in variants.items():
            report, err = study_case(make(lines), run)
            row = count(tally[name], score_case(label, report, accept), report, err)
            if not (row["cause"] and row["component"]) or row["healthy"] or row["unrec"] or err:
                flags = "".join(f" {k}" for k, v in (("HEALTHY", row["healthy"]), ("unrecognised", row["unrec"])) if v)
                misses.append(f"{case_dir.name[:58]:58s} {name:9s} cause={'Y' if row['cause'] else 'n'} "
                              f"comp={'Y' if row['component'] else 'n'} -> {row['top']} "
                              f"(want {label['category']}){flags}{' [' + err + ']' if err else ''}{whole}")
    print(f"{'variant':10s} {'cases':>5s} {'cause':>11s} {'component':>11s} {'healthy':>7s} {'unrecog':>7s}")
    for name, t in tally.items():
        n = t["n"] or 1
        print(f"{name:10s} {t['n']:5d} {t['cause']:4d} ({t['cause'] / n:.2f}) {t['component']:4d} "
              f"({t['component'] / n:.2f}) {t['healthy']:7d} {t['unrecognised']:7d}"
              + (f"  errors={t['errors']}" if t["errors"] else ""))
    if lone:
        print(f"each line of a case's 2-3 evidence lines alone ({sum(lone.values())}): "
              + ", ".join(f"{v} {k}" for k, v in sorted(lone.items())))
        for text in lone_healthy:
            print(f"  HEALTHY: {text}")
    print(f"in {time.time() - started:.0f}s")
    if misses and not args.quiet:
        print("\nmisses (cause or component wrong, healthy, unrecognised):")
        print("\n".join(misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Score `steth diagnose` on the harvested incident cases in fixtures/harvest/.

Run from the project's root:  .venv/bin/python bench/score_harvest.py [--only TEXT] [--steth PATH]

For every case folder under fixtures/harvest/cases/ the artefacts (everything except the case's
own label.yaml and README.md; sub-folders are kept because they name nodes) are copied to a
scratch folder, and `steth diagnose --from-logs DIR --format json` is run on it.

- Faulty case: the top serious finding (severity warning, critical or fatal, lowest rank first)
  must carry a cause that fixtures/harvest/accept.yaml accepts for the label's category, and a
  component accepted for the label's component. An info-only or healthy report scores a miss.
  When the label lists `entity_keys`, one of them (lowercase) must occur in that finding's
  entity (its JSON text).
- Healthy case: no serious finding may appear (else a false alarm), and the verdict should be
  `healthy` (else it is counted as unread).
- Every file the report lists under coverage.unrecognised is counted in unrecognised_files.
- A faulty case whose label says ``paste_evidence: none`` is one whose paste holds no evidence for
  the labelled cause (the thread established it in prose, a later reply or a fix; classed (b) in
  bench/harvest_misses_rD*.md). A reporter's claim never raises a fault here, so no reader can get
  these right: a second summary line scores the faulty cases whose paste holds the evidence.

One row per case goes to standard error; the summary line goes to standard output.
Nothing here reads ../shared.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("score_harvest.py needs PyYAML: run it with the project's venv (.venv/bin/python)")

ROOT = Path(__file__).resolve().parent.parent
HARVEST = ROOT / "fixtures" / "harvest"
SERIOUS = {"warning", "critical", "fatal"}
NOT_ARTEFACTS = {"label.yaml", "README.md"}


def run_steth(steth: str, case_dir: Path, timeout: int) -> tuple[dict, str]:
    """Copy the case's artefacts to a scratch folder, diagnose it, return (report, error)."""
    with tempfile.TemporaryDirectory(prefix="tmp-harvest-") as tmp:
        for src in sorted(case_dir.rglob("*")):
            if not src.is_file():
                continue
            rel = src.relative_to(case_dir)
            if len(rel.parts) == 1 and rel.name in NOT_ARTEFACTS:
                continue
            dst = Path(tmp) / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
        try:
            proc = subprocess.run([steth, "diagnose", "--from-logs", tmp, "--format", "json"],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {}, "timeout"
        out = proc.stdout.strip()
        if not out:
            return {}, f"rc={proc.returncode} {proc.stderr.strip()[-120:]}"
        try:
            return json.loads(out), ""
        except json.JSONDecodeError as exc:
            return {}, f"bad json: {exc}"


def unrecognised_count(report: dict) -> int:
    cov = report.get("coverage") or {}
    unrec = cov.get("unrecognised") or []
    if isinstance(unrec, dict):
        return len(unrec)
    if isinstance(unrec, (list, tuple, set)):
        return len(unrec)
    return 1 if unrec else 0


def score_case(label: dict, report: dict, accept: dict) -> dict:
    findings = sorted(report.get("findings") or [], key=lambda f: f.get("rank", 99))
    serious = [f for f in findings if f.get("severity") in SERIOUS]
    row: dict = {"category": label["category"]}
    if label["category"] == "healthy":
        row["healthy"] = not serious
        row["read"] = report.get("verdict") == "healthy"
        row["top"] = serious[0].get("cause", "?") if serious else report.get("verdict", "-")
        return row
    top = serious[0] if serious else {}
    causes = accept.get("categories", {}).get(label["category"], [label["category"]])
    comp_label = str(label.get("component"))
    comps = accept.get("components", {}).get(comp_label, [comp_label])
    row["cause"] = top.get("cause") in causes
    row["component"] = top.get("component") in comps
    row["top"] = top.get("cause", report.get("verdict", "-"))
    keys = label.get("entity_keys") or []
    if keys:
        entity_text = json.dumps(top.get("entity", {})).lower()
        row["entity"] = any(str(k).lower() in entity_text for k in keys)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steth", default=str(ROOT / ".venv" / "bin" / "steth"))
    ap.add_argument("--only", default="",
                    help="score only cases whose folder name matches this regular expression (re.search:"
                         " a plain '130' is a substring, '^3' the cases numbered 300 and up)")
    ap.add_argument("--timeout", type=int, default=120)
    args = ap.parse_args()
    if not Path(args.steth).exists() and not shutil.which(args.steth):
        print(f"no steth at {args.steth}: set up the venv first, or pass --steth")
        return 2
    accept = yaml.safe_load((HARVEST / "accept.yaml").read_text())
    rows, started, unrecognised = [], time.time(), 0
    for case_dir in sorted((HARVEST / "cases").iterdir()):
        if not (case_dir / "label.yaml").is_file() or (args.only and not re.search(args.only, case_dir.name)):
            continue
        label = yaml.safe_load((case_dir / "label.yaml").read_text())
        report, err = run_steth(args.steth, case_dir, args.timeout)
        row = score_case(label, report, accept)
        row["case"], row["err"] = case_dir.name, err
        row["evidence"] = label.get("paste_evidence") != "none"
        row["unrecognised"] = unrecognised_count(report)
        unrecognised += row["unrecognised"]
        rows.append(row)
        marks = " ".join(f"{k}={'Y' if row[k] else 'n'}"
                         for k in ("cause", "component", "entity", "healthy") if k in row)
        extra = f" unrec={row['unrecognised']}" if row["unrecognised"] else ""
        print(f"{case_dir.name:62s} {label['category']:40s} -> {str(row['top']):32s} {marks}{extra}"
              + (f" [{err}]" if err else ""), file=sys.stderr)
    faulty = [r for r in rows if "cause" in r]
    healthy = [r for r in rows if "healthy" in r]
    with_entity = [r for r in faulty if "entity" in r]

    def frac(items: list, key: str) -> float:
        return sum(1 for r in items if r[key]) / len(items) if items else 0.0

    print(f"cases={len(rows)} cause_top1={frac(faulty, 'cause'):.2f} "
          f"component_top1={frac(faulty, 'component'):.2f} "
          f"entity={frac(with_entity, 'entity'):.2f} ({len(with_entity)} scored) "
          f"healthy_false_alarms={sum(1 for r in healthy if not r['healthy'])}/{len(healthy)} "
          f"healthy_unread={sum(1 for r in healthy if r['healthy'] and not r['read'])} "
          f"unrecognised_files={unrecognised} "
          f"errors={sum(1 for r in rows if r['err'])} in {time.time() - started:.0f}s")
    shown = [r for r in faulty if r["evidence"]]
    print(f"faulty cases whose paste holds the evidence: {len(shown)} of {len(faulty)} "
          f"cause_top1={frac(shown, 'cause'):.2f} component_top1={frac(shown, 'component'):.2f} "
          f"(label paste_evidence: none on the other {len(faulty) - len(shown)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""NCCL INFO audit: do the INFO lines a newer NCCL release prints read as what they are? (issue 11 item 2,
"every message form across versions": benign new INFO lines must not be errors)

bench/nccl_warn_audit.py asks of every WARN format whether steth explains it; an INFO line is NCCL
saying what it did, and most are no fault at all. This script takes every ``INFO(flags, "...")``
format string of one NCCL release that an older release does not have (the forms a newer log shows
and the readers may never have met), fills each in (bench/nccl_warn_extract.py's ``fill``), gives it
NCCL's INFO prefix and diagnoses it alone as a one-file paste. A line is listed when the verdict is
not ``inconclusive``:

- ``faulty`` with a ``parse_problem`` or ``text_error_line`` fact: a reader claimed the line and could
  not parse it, or its words were read as an unexplained failure: a false alarm on a healthy log
  unless the line reports a real failure;
- ``faulty`` with a rule's finding: the line is read as the fault it names (check that it is one);
- ``healthy``: the line alone is read as a working job (an Init COMPLETE does that on purpose).

Run by hand against a local clone of NVIDIA/nccl (a bare git directory is enough, as ``fetch``
gives); nothing in the project runs it::

    .venv/bin/python bench/nccl_info_audit.py --git /path/to/nccl.git                       # v2.22.3-1 -> newest tag
    .venv/bin/python bench/nccl_info_audit.py --git DIR --old v2.26.6-1 --new v2.30.7-1

Session 40's run (v2.22.3-1 -> v2.30.7-1, 662 new formats): 654 inconclusive, 6 faulty, 2 healthy;
the faulty ones were 2.29's split-child Init lines ('childCount', parse problems), NCCL_IB_RESILIENCY's
completion-error INFO line (a parse problem) and its 'to ERROR state' recovery lines (text errors),
and os/linux.cc's connect retry (read by nccl_log_socket on purpose). bench/wild_sweep_rN5.md.
Session 47's (round rW4, same releases): 649 inconclusive, 11 faulty, 2 healthy: NCCL_IB_RESILIENCY's recovery
steps and give-ups are read as its WARN kinds (nccl_warn_kinds._INFO_KINDS), no longer text errors. bench/nccl_forms_rW4.md.
"""
from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nccl_warn_extract as X  # noqa: E402
from nccl_warn_audit import diagnose_alone  # noqa: E402

CALL = re.compile(r"(?<![A-Za-z0-9_])INFO\s*\(")


def calls(text: str):
    """(line, format) of each ``INFO(flags, "...")`` call of one source file whose format is a literal."""
    for m in CALL.finditer(text):
        before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        if before.lstrip().startswith("#define") or "//" in before:
            continue
        pos, depth = m.end(), 0  # past the flags argument: the first comma outside brackets
        while pos < len(text) and not (text[pos] == "," and depth == 0):
            if text[pos] in "([":
                depth += 1
            elif text[pos] in ")]":
                if depth == 0:
                    break
                depth -= 1
            pos += 1
        if pos >= len(text) or text[pos] != ",":
            continue
        pos, parts, literal = pos + 1, [], False
        while (t := X.TOKEN.match(text, pos)):
            if t.group(1) is not None:
                parts.append(t.group(1))
                literal = True
            elif t.group(2) is not None and literal:
                parts.append(X.PRI.get(t.group(2), "%s"))
            elif t.group(2) is not None:
                break
            pos = t.end()
        if literal:
            yield text.count("\n", 0, m.start()) + 1, X.unescape("".join(parts)).rstrip("\n")


def formats(gitdir: str, tag: str) -> dict[str, str]:
    """{format: file:line} of every INFO call under src/ of one release."""
    out: dict[str, str] = {}
    for hit in X.git(gitdir, "grep", "-l", "INFO", tag, "--", "src").split():
        path = hit.split(":", 1)[1]
        if re.search(r"\.(?:cc|cu|cuh|h|hpp|cpp|c)$", path):
            for line, fmt in calls(X.git(gitdir, "show", hit)):
                out.setdefault(fmt, f"{path}:{line}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git", required=True, help="a clone of NVIDIA/nccl (bare is enough)")
    ap.add_argument("--old", default="v2.22.3-1", help="the release whose INFO formats are left out")
    ap.add_argument("--new", help="the release audited (default: the newest v2.* tag)")
    args = ap.parse_args()
    new = args.new or X.tags(args.git, (2, 0))[-1]
    old = formats(args.git, args.old)
    rows = [(fmt, src) for fmt, src in formats(args.git, new).items() if fmt not in old]
    from stethoscope.engine.ruleengine.loader import load_rules

    ruleset = load_rules()
    verdicts: collections.Counter = collections.Counter()
    for fmt, src in rows:
        text = f"[2025-06-01 10:00:00] node-1:48213:48390 [3] NCCL INFO {X.fill(fmt).splitlines()[0]}"
        own, facts, verdict = diagnose_alone(text, ruleset)
        verdicts[verdict] += 1
        if verdict != "inconclusive":
            kinds = ",".join(sorted({f.kind for f in facts})) or "-"
            print(f"{verdict:8s} {(own[0].cause if own else '-'):26s} {kinds:34s} {src:48s} {text[44:160]}")
    print(f"\n{len(rows)} INFO formats of {new} that {args.old} has not: " + ", ".join(f"{v} {n}" for v, n in verdicts.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

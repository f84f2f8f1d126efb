#!/usr/bin/env python3
"""NCCL WARN audit: of every WARN message NCCL v2.18 .. newest can print, how many does steth
explain? (issue 11 item 2, "every message form across versions")

bench/nccl_warn_formats.yaml holds every ``WARN("...")`` format string of NCCL's src/ in the
releases v2.18.1-1 .. v2.30.7-1, deduplicated, with its file:line and releases, and one line made
from it (bench/nccl_warn_extract.py wrote it from NVIDIA/nccl's tags). Each line gets the prefix
src/debug.cc prints for a WARN in the newest release that has it (``[%F %T] `` timestamp from
2.26 on, when NCCL_DEBUG_TIMESTAMP_LEVELS' default began to hold WARN)::

    [2025-06-01 10:00:00] node-1:48213:48390 [3] transport/net_ib/init.cc:334 NCCL WARN NET/IB : ...

and is diagnosed alone as a one-file bundle (``paste.txt``, as ``steth diagnose --from-logs DIR``
reads it). Each is then one of:

- ``explained``: a finding with a cause other than ``unexplained_error`` cites the line;
- ``read``: facts were read from the line (an ``nccl_warn``) but nothing explains it: the verdict
  reports it as ``unexplained_error``;
- ``unread``: no fact came from the line.

A line diagnosed ``healthy`` is a bug and is listed. Formats with no text of their own
(``WARN(msg)``, ``WARN("%s", msg)``) are counted apart, as ``no_literal``. Figures per area (the source file's part of NCCL) and in all.

    .venv/bin/python bench/nccl_warn_audit.py                 # counts per area and in all
    .venv/bin/python bench/nccl_warn_audit.py -v              # and one row per format
    .venv/bin/python bench/nccl_warn_audit.py --show read -k socket   # the unexplained socket ones
    .venv/bin/python bench/nccl_warn_audit.py --bare          # the messages without NCCL's prefix
    .venv/bin/python bench/nccl_warn_audit.py --data bench/nccl_warn_formats_old.yaml   # v2.3 .. v2.17's own

A benchmark script (it prints figures), not a test; it reads only bench/nccl_warn_formats.yaml.
"""
from __future__ import annotations

import argparse
import collections
import re
import sys
import tempfile
import time
from pathlib import Path

import yaml

DATA = Path(__file__).with_name("nccl_warn_formats.yaml")
STAMPED_FROM = (2, 26)  # src/debug.cc: WARN lines carry "[%F %T] " by default from v2.26.2-1 on

# (area, source path pattern): the part of NCCL a format belongs to, first match wins
AREAS: list[tuple[str, str]] = [
    ("windows", r"^src/os/windows"),
    ("ib", r"net_ib|ibvwrap|ibvsymbols|ibvcore|mlx5dv"),
    ("socket", r"misc/socket|net_socket|ipcsocket|os/linux_socket|include/socket\.h"),
    ("bootstrap", r"bootstrap"),
    ("proxy", r"proxy"),
    ("shm", r"shm|os/linux"),
    ("cuda", r"cudawrap|checks\.h|alloc\.h|strongstream|argcheck|cudaw"),
    ("nvml", r"nvml"),
    ("nvls/cumem", r"nvls|mnnvl|cumem|mem_manager|register|allocator|dev_runtime"),
    ("plugin", r"plugin/|net\.cc|coll_net|gdrwrap"),
    ("ras", r"/ras/"),
    ("gin/rma", r"/gin/|/rma/"),
    ("graph", r"/graph/|misc/rings"),
    ("p2p", r"transport/p2p"),
    ("init/enqueue", r"init\.cc|init\.cu|enqueue|group|collectives|channel|transport\.c|comm|include/core\.h"),
]


def area(source: str) -> str:
    return next((a for a, pat in AREAS if re.search(pat, source)), "other")


def released(tag: str) -> tuple[int, int]:
    m = re.match(r"v(\d+)\.(\d+)", tag)
    return (int(m.group(1)), int(m.group(2)))


def prefixed(row: dict) -> str:
    path, line = row["source"].rsplit(":", 1)
    stamp = "[2025-06-01 10:00:00] " if released(row["last"]) >= STAMPED_FROM else ""
    return f"{stamp}node-1:48213:48390 [3] {path.removeprefix('src/')}:{line} NCCL WARN {row['sample']}"


def diagnose_alone(text: str, ruleset) -> tuple[list, list, str]:
    """One line diagnosed alone, as a one-file paste: the findings other than unexplained_error (serious
    first, then by rank), the facts read from the line, the verdict (bench/ofi_warn_audit.py too)."""
    from stethoscope.engine.pipeline import diagnose, observe_bundle

    with tempfile.TemporaryDirectory(prefix="tmp-warn-audit-") as tmp:
        (Path(tmp) / "paste.txt").write_text(text + "\n", encoding="utf-8")
        obs = observe_bundle(tmp, 1, ruleset=ruleset)
        rep = diagnose(obs, ruleset)
    own = [f for f in rep.findings if f.cause != "unexplained_error"]
    own.sort(key=lambda f: (f.severity == "info", f.rank or 99))
    line_facts = [f for f in obs.facts if f.evidence and f.evidence.path and f.evidence.path.endswith("paste.txt")]
    return own, line_facts, rep.verdict


def classify(text: str, ruleset) -> tuple[str, str, str]:
    """(explained|read|unread, the explaining cause or '-', verdict) of one line diagnosed alone."""
    own, line_facts, verdict = diagnose_alone(text, ruleset)
    if own:
        return "explained", own[0].cause, verdict
    return ("read" if line_facts else "unread"), "-", verdict


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only formats holding this text (case-insensitive)")
    ap.add_argument("--area", default="", help="only this area (ib, socket, bootstrap, proxy, shm, cuda, ...)")
    ap.add_argument("--show", choices=("explained", "read", "unread"), help="list the formats of this class")
    ap.add_argument("-v", "--verbose", action="store_true", help="one row per format")
    ap.add_argument("--bare", action="store_true", help="diagnose the message without NCCL's prefix")
    ap.add_argument("--data", default=str(DATA), help="the extracted formats (bench/nccl_warn_formats_old.yaml: the "
                    "formats only v2.3 .. v2.17 print)")
    args = ap.parse_args()
    from stethoscope.engine.ruleengine.loader import load_rules

    doc = yaml.safe_load(Path(args.data).read_text(encoding="utf-8"))
    rows = [r for r in doc["formats"] if args.k.lower() in (r["format"] or "").lower()
            and (not args.area or area(r["source"]) == args.area)]
    ruleset = load_rules()
    started = time.time()
    per_area: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    causes: collections.Counter = collections.Counter()
    healthy: list[str] = []
    for r in rows:
        a = area(r["source"])
        if r["format"] is None or len(re.sub(r"%\S|\s", "", r["format"])) < 8:  # WARN(msg), WARN("%s", msg): no text of its own
            per_area[a]["no_literal"] += 1
            continue
        text = r["sample"] if args.bare else prefixed(r)
        cls, cause, verdict = classify(text, ruleset)
        per_area[a][cls] += 1
        if cls == "explained":
            causes[cause] += 1
        if verdict == "healthy":
            healthy.append(text)
        if args.verbose or args.show == cls:
            first_line = r["sample"].splitlines()[0] if r["sample"] else ""
            print(f"{cls:9s} {cause:28s} {r['source']:46s} {r['versions'][:36]:36s} {first_line[:110]}")
    total = collections.Counter()
    print(f"\n{'area':14s} {'formats':>7s} {'explained':>9s} {'read':>5s} {'unread':>6s} {'no_literal':>10s}")
    for a in sorted(per_area, key=lambda a: -sum(per_area[a].values())):
        c = per_area[a]
        total.update(c)
        print(f"{a:14s} {sum(c.values()):7d} {c['explained']:9d} {c['read']:5d} {c['unread']:6d} {c['no_literal']:10d}")
    print(f"{'all':14s} {sum(total.values()):7d} {total['explained']:9d} {total['read']:5d} {total['unread']:6d} "
          f"{total['no_literal']:10d}")
    print(f"\n{len(rows)} formats ({'bare' if args.bare else 'prefixed'}), {time.time() - started:.0f}s; "
          f"explaining causes: {', '.join(f'{c} {n}' for c, n in causes.most_common())}")
    print(f"healthy: {len(healthy)}")
    for text in healthy:
        print(f"  HEALTHY {text}")
    return 1 if healthy else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""aws-ofi-nccl WARN audit: of every ``NET/OFI ...`` WARN the OFI net plugin v1.7 .. newest can
print, how many does steth read as a typed fact, and how many does it explain? (the plugin's side
of bench/nccl_warn_audit.py)

bench/ofi_warn_formats.yaml holds every ``NCCL_OFI_WARN("...")`` format string of aws-ofi-nccl's
src/ and include/ in the releases v1.7.0-aws .. v1.21.1, deduplicated, with its file:line, the
function it is in and its releases, and one line made from it (bench/ofi_warn_extract.py wrote it
from aws/aws-ofi-nccl's tags). Each line gets the prefix NCCL's logger prints for the plugin
(``__PRETTY_FUNCTION__:__LINE__`` where NCCL's own lines have file:line)::

    [2025-06-01 10:00:00] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI ...

and is diagnosed alone as a one-file bundle. Each is then one of:

- ``explained``: a finding with a cause other than ``unexplained_error`` cites the line;
- ``typed``: a typed fact (``nccl_net_plugin_error`` ...) was read from it, no rule explains it;
- ``read``: only a generic ``nccl_warn`` came from it: the verdict says ``unexplained_error``;
- ``unread``: no fact came from the line.

A line diagnosed ``healthy`` is a bug and is listed. Formats with no text of their own are counted
apart (``no_literal``).

    .venv/bin/python bench/ofi_warn_audit.py                 # counts per area and in all
    .venv/bin/python bench/ofi_warn_audit.py --show read -k register   # the unexplained ones about registration

A benchmark script (it prints figures), not a test; it reads only bench/ofi_warn_formats.yaml.
"""
from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from pathlib import Path

import yaml

from nccl_warn_audit import diagnose_alone  # bench/: one line diagnosed alone, as NCCL's audit does

DATA = Path(__file__).with_name("ofi_warn_formats.yaml")

# (area, source path pattern): the part of the plugin a format belongs to, first match wins
AREAS: list[tuple[str, str]] = [
    ("gin", r"/gin/|gin"),
    ("cm", r"/cm/|_cm"),
    ("platform", r"platform"),
    ("rdma", r"rdma"),
    ("sendrecv", r"sendrecv"),
    ("ofiutils", r"ofiutils|ofi_utils|resource_wrapper|/ofi/"),
    ("memory/mr", r"_mr|memcheck|cuda|neuron|dmabuf|mr_cache|freelist|idpool|gpu|mem"),
    ("topology", r"topo|affinity|hwloc"),
    ("params/stats", r"param|stats|histogram|tracepoint|system|pthread|log"),
    ("api/net", r"api|nccl_ofi_net|interface|tuner|scheduler|msgbuff|deque"),
]
PREFIX = "[2025-06-01 10:00:00] ip-172-31-3-90:1929:1937 [0] {func}:{line} NCCL WARN NET/OFI {msg}"


def area(source: str) -> str:
    return next((a for a, pat in AREAS if re.search(pat, source)), "other")


def prefixed(row: dict) -> str:
    func = row.get("function") or "nccl_net_ofi_init"
    return PREFIX.format(func="nccl_net_ofi_init" if func == "?" else func, line=row["source"].rsplit(":", 1)[1],
                         msg=row["sample"])


def classify(text: str, ruleset) -> tuple[str, str, str]:
    """(explained|typed|read|unread, the explaining cause or the typed kind or '-', verdict) of one line alone."""
    own, line_facts, verdict = diagnose_alone(text, ruleset)
    if own:
        return "explained", own[0].cause, verdict
    typed = sorted({f.kind for f in line_facts} - {"nccl_warn"})
    if typed:
        return "typed", typed[0], verdict
    return ("read" if line_facts else "unread"), "-", verdict


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only formats holding this text (case-insensitive)")
    ap.add_argument("--area", default="", help="only this area (rdma, sendrecv, platform, ofiutils, memory/mr, ...)")
    ap.add_argument("--show", choices=("explained", "typed", "read", "unread"), help="list the formats of this class")
    ap.add_argument("-v", "--verbose", action="store_true", help="one row per format")
    args = ap.parse_args()
    from stethoscope.engine.ruleengine.loader import load_rules

    doc = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    rows = [r for r in doc["formats"] if args.k.lower() in (r["format"] or "").lower()
            and (not args.area or area(r["source"]) == args.area)]
    ruleset = load_rules()
    started = time.time()
    per_area: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    causes: collections.Counter = collections.Counter()
    healthy: list[str] = []
    for r in rows:
        a = area(r["source"])
        if r["format"] is None or len(re.sub(r"%\S|\s", "", r["format"])) < 8:
            per_area[a]["no_literal"] += 1
            continue
        text = prefixed(r)
        cls, cause, verdict = classify(text, ruleset)
        per_area[a][cls] += 1
        if cls == "explained":
            causes[cause] += 1
        if verdict == "healthy":
            healthy.append(text)
        if args.verbose or args.show == cls:
            print(f"{cls:9s} {cause:28s} {r['source']:44s} {r['versions'][:30]:30s} {r['sample'].splitlines()[0][:110]}")
    total = collections.Counter()
    print(f"\n{'area':13s} {'formats':>7s} {'explained':>9s} {'typed':>5s} {'read':>5s} {'unread':>6s} {'no_literal':>10s}")
    for a in sorted(per_area, key=lambda a: -sum(per_area[a].values())):
        c = per_area[a]
        total.update(c)
        print(f"{a:13s} {sum(c.values()):7d} {c['explained']:9d} {c['typed']:5d} {c['read']:5d} {c['unread']:6d} "
              f"{c['no_literal']:10d}")
    print(f"{'all':13s} {sum(total.values()):7d} {total['explained']:9d} {total['typed']:5d} {total['read']:5d} "
          f"{total['unread']:6d} {total['no_literal']:10d}")
    print(f"\n{len(rows)} formats, {time.time() - started:.0f}s; explaining causes: "
          f"{', '.join(f'{c} {n}' for c, n in causes.most_common())}")
    print(f"healthy: {len(healthy)}")
    for text in healthy:
        print(f"  HEALTHY {text}")
    return 1 if healthy else 0


if __name__ == "__main__":
    sys.exit(main())

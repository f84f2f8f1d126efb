#!/usr/bin/env python3
"""NVRM audit: of the error and warning messages the NVIDIA kernel driver prints (``NVRM: ...``),
515 .. 595, how many does steth explain? (issue 11 item 2, "NVRM messages beyond Xid")

bench/nvrm_formats.yaml holds the driver's format strings (kernel-open/nvidia and the resource
manager's init, GSP, FSP, RPC, watchdog, recovery and assertion paths) with their file:line and
releases, and one message made from each (bench/nvrm_extract.py wrote it from
NVIDIA/open-gpu-kernel-modules' tags). Each message becomes kernel log lines as dmesg prints
them::

    [  123.456789] NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x62:0x40:2168)

and is diagnosed alone as a one-file bundle (bench/nccl_warn_audit.py's ``classify``: steth's
plain functions, as ``steth diagnose --from-logs DIR`` reads a pasted file). Each is then one of

- ``explained``: a finding with a cause other than ``unexplained_error`` cites it;
- ``read``: facts were read from it but nothing explains it (the verdict reports an unexplained error);
- ``unread``: no fact came from it.

A message diagnosed ``healthy`` is counted apart per level (``error`` for NV_DBG_ERRORS /
LEVEL_ERROR / asserts, else ``warning``; ``identity`` for the GPU identity lines of ``IDENTITY``,
where healthy is right); on an error line it is the worst outcome. Figures per
area (the driver's part) and in all.

    .venv/bin/python bench/nvrm_audit.py                  # counts per area and in all
    .venv/bin/python bench/nvrm_audit.py -v               # and one row per format
    .venv/bin/python bench/nvrm_audit.py --show unread -k gsp

A benchmark script (it prints figures), not a test; it reads only bench/nvrm_formats.yaml.
"""
from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from nccl_warn_audit import classify  # noqa: E402

DATA = Path(__file__).with_name("nvrm_formats.yaml")
# (area, source path pattern): first match wins
AREAS: list[tuple[str, str]] = [
    ("assert", r"nvassert"),
    ("xid/rc", r"kernel_rc"),
    ("gsp", r"/gsp/|message_queue"),
    ("fsp", r"/fsp/"),
    ("rpc", r"vgpu/rpc"),
    ("rm-init", r"arch/nvalloc/unix|gpu/gpu\.c|thread_state|gpu_timeout"),
    ("kernel-pci", r"kernel-open/nvidia/(?:nv-pci|os-pci|nv-msi)"),
    ("kernel", r"kernel-open"),
]


# error-level prints that say who a GPU is, not that anything failed (kernel_rc.c prints them before
# an Xid, osinit.c when a GPU is lost): healthy is the right verdict when one is pasted alone
IDENTITY = re.compile(r"NVRM: (?:GPU Board Serial Number: |GPU at PCI:|GPU \S+: GPU serial number is )")


def area(source: str) -> str:
    return next((a for a, pat in AREAS if re.search(pat, source)), "other")


def dmesg(sample: str) -> str:
    """The message as dmesg prints it: each of its lines stamped."""
    return "\n".join(f"[  123.{456789 + i:06d}] {line}" for i, line in enumerate(sample.splitlines()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only formats holding this text (case-insensitive)")
    ap.add_argument("--area", default="", help="only this area (" + ", ".join(a for a, _ in AREAS) + ")")
    ap.add_argument("--show", choices=("explained", "read", "unread", "healthy"), help="list the formats of this class")
    ap.add_argument("-v", "--verbose", action="store_true", help="one row per format")
    args = ap.parse_args()
    from stethoscope.engine.ruleengine.loader import load_rules

    doc = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    rows = [r for r in doc["formats"] if args.k.lower() in r["format"].lower()
            and (not args.area or area(r["source"]) == args.area)]
    ruleset = load_rules()
    started = time.time()
    per_area: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    causes: collections.Counter = collections.Counter()
    healthy: list[tuple[str, str]] = []
    for r in rows:
        a = area(r["source"])
        cls, cause, verdict = classify(dmesg(r["sample"]), ruleset)
        per_area[a][cls] += 1
        if cls == "explained":
            causes[cause] += 1
        if verdict == "healthy":
            level = "identity" if IDENTITY.match(r["sample"]) else r.get("level", "error")
            per_area[a][f"healthy_{level}"] += 1
            healthy.append((level, r["sample"].splitlines()[0]))
        if args.verbose or args.show == cls or (args.show == "healthy" and verdict == "healthy"):
            print(f"{cls:9s} {cause:26s} {verdict:12s} {r['source']:60s} {r['versions'][:28]:28s} "
                  f"{r['sample'].splitlines()[0][:110]}")
    total = collections.Counter()
    print(f"\n{'area':11s} {'formats':>7s} {'explained':>9s} {'read':>5s} {'unread':>6s} {'healthy(err)':>12s} {'healthy(warn)':>13s} {'identity':>8s}")
    for a in sorted(per_area, key=lambda a: -sum(per_area[a][k] for k in ("explained", "read", "unread"))):
        c = per_area[a]
        total.update(c)
        print(f"{a:11s} {c['explained'] + c['read'] + c['unread']:7d} {c['explained']:9d} {c['read']:5d} {c['unread']:6d} "
              f"{c['healthy_error']:12d} {c['healthy_warning']:13d} {c['healthy_identity']:8d}")
    print(f"{'all':11s} {total['explained'] + total['read'] + total['unread']:7d} {total['explained']:9d} {total['read']:5d} "
          f"{total['unread']:6d} {total['healthy_error']:12d} {total['healthy_warning']:13d} {total['healthy_identity']:8d}")
    print(f"\n{len(rows)} formats, {time.time() - started:.0f}s; explaining causes: "
          f"{', '.join(f'{c} {n}' for c, n in causes.most_common())}")
    return 1 if total["healthy_error"] else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Extract every ``NCCL_OFI_WARN("...")`` format string of aws-ofi-nccl's releases into
bench/ofi_warn_formats.yaml: the data bench/ofi_warn_audit.py diagnoses (the net plugin's side of
bench/nccl_warn_extract.py).

Run by hand against a local clone of aws/aws-ofi-nccl (a bare git directory is enough); nothing in
the project runs it or reads the clone at run time::

    .venv/bin/python bench/ofi_warn_extract.py --git /path/to/aws-ofi-nccl.git     # v1.7.0 .. newest tag
    .venv/bin/python bench/ofi_warn_extract.py --git DIR --since 1.14

aws-ofi-nccl prints through NCCL's logger (include/nccl_ofi_log.h, every release):
``#define NCCL_OFI_WARN(fmt, ...) (*ofi_log_function)(NCCL_LOG_WARN, NCCL_ALL, __PRETTY_FUNCTION__,
__LINE__, "NET/OFI " fmt, ##__VA_ARGS__)``, so NCCL writes ``host:pid:tid [dev] <function>:<line>
NCCL WARN NET/OFI <message>``. For every release tag ``v1.MM.P[-aws]`` from ``--since`` on it reads
each ``.c``/``.cpp``/``.h`` file under ``src/`` and ``include/`` holding ``NCCL_OFI_WARN`` and takes
each call's first argument's string literals (as bench/nccl_warn_extract.py does; ``PACKAGE_NAME``
becomes ``aws-ofi-nccl``), with the function it is in (what NCCL prints before the line number).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from nccl_warn_extract import PRI, TOKEN, fill, git, ranges, unescape, write_formats  # noqa: E402

OUT = Path(__file__).with_name("ofi_warn_formats.yaml")
TAG = re.compile(r"^v1\.(\d+)\.(\d+)(?:-aws)?$")
CALL = re.compile(r"(?<![A-Za-z0-9_])NCCL_OFI_WARN\s*\(")
# the function a call is in: the last definition head at column 0 before it ("static int foo(", "int Class::foo(")
FUNC = re.compile(r"^[A-Za-z_][\w:<>*& ]{0,120}?\b(~?\w+)\s*\([^;{}]{0,400}?\)\s*(?:const\s*)?(?:override\s*)?\{?\s*$", re.M)
MACROS = {"PACKAGE_NAME": "aws-ofi-nccl"}


def calls(text: str):
    """(line, function, format or None) of each NCCL_OFI_WARN( call in one source file."""
    heads = [(m.start(), m.group(1)) for m in FUNC.finditer(text)]
    for m in CALL.finditer(text):
        before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        if before.lstrip().startswith("#define") or "//" in before:
            continue
        pos, parts, literal = m.end(), [], False
        while (t := TOKEN.match(text, pos)):
            if t.group(3):
                pass
            elif t.group(1) is not None:
                parts.append(t.group(1))
                literal = True
            elif t.group(2) in MACROS:
                parts.append(MACROS[t.group(2)])
                literal = True
            elif literal and t.group(2) in PRI:
                parts.append(PRI[t.group(2)])
            elif literal:
                parts.append("%s")
            else:
                break
            pos = t.end()
        func = next((name for at, name in reversed(heads) if at < m.start()), "?")
        yield text.count("\n", 0, m.start()) + 1, func, ("".join(parts) if literal else None)


def tags(gitdir: str, since: tuple[int, int]) -> list[str]:
    found = [t for t in git(gitdir, "tag").split() if (m := TAG.match(t)) and (1, int(m.group(1))) >= since]
    return sorted(found, key=lambda t: tuple(int(x) for x in TAG.match(t).groups()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git", required=True, help="a clone of aws/aws-ofi-nccl (bare is enough)")
    ap.add_argument("--since", default="1.7", help="the first release series (default 1.7)")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    major, minor = (int(x) for x in args.since.split("."))
    order = tags(args.git, (major, minor))
    found: dict[str, dict] = {}
    for tag in order:
        for hit in git(args.git, "grep", "-l", "NCCL_OFI_WARN", tag, "--", "src", "include").split():
            path = hit.split(":", 1)[1]
            if not re.search(r"\.(?:c|cpp|cc|h|hpp)$", path):
                continue
            for line, func, fmt in calls(git(args.git, "show", hit)):
                key = fmt if fmt is not None else f"{path}:{line}"
                e = found.setdefault(key, {"fmt": fmt, "at": {}, "func": {}})
                e["at"][tag] = f"{path}:{line}"
                e["func"][tag] = func
        print(f"{tag}: {len(found)} formats", file=sys.stderr)
    head = git(args.git, "rev-parse", order[-1] + "^{commit}").strip()
    rows = []
    for e in found.values():
        have = list(e["at"])
        fmt = unescape(e["fmt"]) if e["fmt"] is not None else None
        row = {"format": fmt, "source": e["at"][have[-1]], "function": e["func"][have[-1]], "since": have[0],
               "last": have[-1], "versions": ranges(have, order)}
        if e["at"][have[0]] != e["at"][have[-1]]:
            row["first_source"] = e["at"][have[0]]
        if fmt is not None:
            row["sample"] = fill(fmt)
        rows.append(row)
    write_formats(args.out, "# aws-ofi-nccl's NCCL_OFI_WARN() format strings (printed as 'NET/OFI <format>'), every release from "
                  + order[0] + " to " + order[-1] + ", deduplicated.\n# Generated by bench/ofi_warn_extract.py; read by "
                  "bench/ofi_warn_audit.py.\n# `source`: file:line in the newest release that has the format (`first_source`: "
                  "in the oldest,\n# when it moved); `function`: what NCCL prints before the line number; `versions`: the "
                  "releases that have it;\n# `sample`: the format filled in.\n",
                  f"aws/aws-ofi-nccl src/ include/ NCCL_OFI_WARN() calls, tags {order[0]} .. {order[-1]} ({head[:10]}); "
                  "extracted by bench/ofi_warn_extract.py", order, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Print knowledge/dcgm.yaml's ``error_codes`` rows from a DCGM release's failure-reason catalogue.

Inputs: dcgmlib/dcgm_errors.h (the dcgmError_t enum: ``DCGM_FR_<NAME> = <id>, //!< <id> <text>``) and
dcgmlib/src/dcgm_errors.c (``DCGM_ERROR_TABLE_ENTRY(DCGM_FR_<NAME>, DCGM_ERROR_<SEVERITY>, DCGM_FR_EC_<CATEGORY>)``)
of one tag of github.com/NVIDIA/DCGM, as local files.

Usage:
  python tools/gen_dcgm_error_codes.py dcgm_errors.h dcgm_errors.c   # paste the output under error_codes:

``dcgmi diag -j`` gives each warning's code as ``"error_id"`` (dcgmi/Diag.cpp HelperJsonAddResult, DCGM 3.x-4.x).
The enum is append-only: between 3.3.9 and 4.6.0 no id changed its meaning (10, 12 and 43 were renamed from
CLOCK_THROTTLE_* / THROTTLING_VIOLATION to CLOCKS_EVENT_* in 4.0; the old names are kept as aliases of the
same ids). Stdlib only; the output is deterministic.
"""
from __future__ import annotations

import re
import sys

_ENUM = re.compile(r"(DCGM_FR_[A-Z0-9_]+)\s*=\s*(\d+)\s*,?\s*//!<\s*\d+\s*(.*)")
_META = re.compile(r"DCGM_ERROR_TABLE_ENTRY\((DCGM_FR_[A-Z0-9_]+),\s*(DCGM_ERROR_[A-Z]+),\s*(DCGM_FR_EC_[A-Z_]+)\)")


def rows(header: str, table: str) -> list[dict]:
    enum = header[header.index("typedef enum dcgmError_enum"):header.index("} dcgmError_t;")]
    meta = {m[1]: (m[2], m[3]) for m in _META.finditer(table)}
    out = []
    for m in _ENUM.finditer(enum):
        if m[1] in ("DCGM_FR_OK", "DCGM_FR_ERROR_SENTINEL"):
            continue
        severity, category = meta.get(m[1], (None, None))
        out.append({"id": int(m[2]), "reason": m[1], "text": m[3].strip(), "severity": severity, "category": category})
    return sorted(out, key=lambda r: r["id"])


def main() -> None:
    header, table = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
    for r in rows(header, table):
        text = r["text"].replace('"', "'")
        print(f'  - {{id: {r["id"]}, reason: {r["reason"]}, text: "{text}", severity: {r["severity"]}, category: {r["category"]}}}')


if __name__ == "__main__":
    main()

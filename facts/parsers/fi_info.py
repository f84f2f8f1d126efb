"""``fi_info`` (libfabric's provider query, ``fi_info -p efa``): which fabric providers answer.

Sample content (aws/aws-graviton-getting-started HPC/README.md; aws/aws-ofi-nccl#1020)::

    fi_info -p efa
    fi_getinfo: -61
    provider: efa
        fabric: EFA-fe80::94:3dff:fe89:1b70
        domain: efa_0-rdm
    $ fi_info -p efa
    -61

Facts: ``fi_provider`` per provider entry (provider, fabric, domain), and ``fi_info_error``
when the query failed: ``fi_getinfo: -N`` (libfabric's own message, ``(No data available)``
after it from 1.x on), or a bare ``-N`` on the line right after an ``fi_info`` command, as
people paste it. -61 is FI_ENODATA: no provider of that name found a device, the usual
answer in a container without the EFA/verbs devices or on a host without the driver.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import (  # noqa: F401 - the fact classes live in facts/kinds
    FiInfoError, FiProvider,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "fi_info"


# $ fi_info -p efa
# fi_info -p lnx -c FI_TAGGED -t FI_EP_RDM
_COMMAND = re.compile(r"^(?:\S*[$#>]\s*)?(?:sudo\s+)?(?:\S*/)?fi_info\b(?P<args>[^\n]*)$", re.M)
_PROVIDER_ARG = re.compile(r"(?:-p|--provider)[ =](?P<p>[\w;+:-]+)")
# fi_getinfo: -61
# fi_getinfo: -61 (No data available)
_GETINFO = re.compile(r"^\s*fi_getinfo: (?P<code>-\d+)(?: \((?P<msg>[^)\n]*)\))?\s*$", re.M)
# -61        (the line right after `$ fi_info -p efa`, aws-ofi-nccl#1020)
_BARE = re.compile(r"^\s*(?P<code>-\d+)\s*$")
# provider: efa
#     fabric: EFA-fe80::94:3dff:fe89:1b70
#     domain: efa_0-rdm
_ENTRY = re.compile(r"^provider: (?P<provider>\S+)[ \t]*\n[ \t]+fabric: (?P<fabric>\S+)[ \t]*\n(?:[ \t]+domain: (?P<domain>\S+))?", re.M)
#: libfabric's error numbers as fi_info prints them (include/rdma/fi_errno.h)
FI_ERRORS = {61: "No data available (FI_ENODATA: no provider found a device)", 22: "Invalid argument", 38: "Function not implemented"}


def detect(text: str) -> bool:
    return ("fi_getinfo: " in text and _GETINFO.search(text) is not None) or (
        "fi_info" in text and _COMMAND.search(text) is not None) or ("provider: " in text and _ENTRY.search(text) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    asked: str | None = None
    for i, raw in enumerate(lines):
        n = i + 1
        line = raw.strip()
        if m := _COMMAND.match(line):
            p = _PROVIDER_ARG.search(m["args"])
            asked = p["p"] if p else None
            result.lines_used += 1
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if (bare := _BARE.match(nxt)):
                code = -int(bare["code"])
                b.add(FiInfoError, n + 1, code=-code, provider=asked, message=FI_ERRORS.get(code))
                result.lines_used += 1
        elif m := _GETINFO.match(raw):
            code = int(m["code"])
            b.add(FiInfoError, n, code=code, provider=asked, message=m["msg"] or FI_ERRORS.get(-code))
            result.lines_used += 1
    for m in _ENTRY.finditer(artefact.text):
        n = artefact.line_of(m.start())
        b.add(FiProvider, n, provider=m["provider"], fabric=m["fabric"], domain=m["domain"])
        result.lines_used += 1 + bool(m["fabric"]) + bool(m["domain"])
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_GETINFO, _COMMAND, _ENTRY)

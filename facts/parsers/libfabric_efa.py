"""libfabric's EFA provider aborting on an error it could not hand to the application, in the output
of any program that uses libfabric over EFA (an MPI, NCCL's aws-ofi-nccl plugin, NVSHMEM, a fabtest).

The provider writes an error it cannot attach to a user operation (a failed completion of its own
protocol, a peer that stopped answering) to the endpoint's event queue; with no event queue bound
(NCCL's plugin and most MPIs bind none) it prints the error and aborts. The forms, from
ofiwg/libfabric prov/efa (``efa_eq_write_error``, since 1.19 ``efa_base_ep_write_eq_error``)::

    1.8-1.15:  "Unable to write to EQ: %s. err: %s (%zd) prov_errno: %s (%zd) %s:%d"
               (fi_strerror of the write's failure, "Missing or unavailable event queue"; the
               provider's source file and line)
    1.16-:     "Libfabric EFA provider has encountered an internal error:\\n\\n"    ("encounterd" until 1.18)
               "Libfabric error: (%zd) %s\\n"
               "EFA internal error: (%zd) %s\\n\\n"       (efa_strerror: the device's completion status
               "Your application will now abort().\\n"     below 4096, the provider's own error above)

Sample lines (real: ofiwg/libfabric#5716, a libfabric 1.10 program on EFA; the 1.16+ form filled in
from efa_base_ep.c and efa_errno.h)::

    Unable to write to EQ: Missing or unavailable event queue. err: Input/output error (5) prov_errno: Unknown error -11 (-11) prov/efa/src/rxr/rxr.h:1343

Facts: ``efa_provider_abort`` per report: the libfabric error and the provider error (number and
text as printed). What the provider error means is in its text (efa_errno.h: "Unresponsive remote",
"Destination resource not ready", ...). Empty input, or no such report: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import EfaProviderAbort  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "libfabric_efa"

# Unable to write to EQ: Missing or unavailable event queue. err: Input/output error (5) prov_errno: Unknown error -11 (-11) prov/efa/src/rxr/rxr.h:1343
_OLD = re.compile(r"\bUnable to write to EQ: [^\n.]{1,80}\. err: (?P<err_text>[^\n(]{1,80}?) \((?P<err>-?\d{1,6})\) "
                  r"prov_errno: (?P<prov_text>[^\n(]{1,120}?) \((?P<prov>-?\d{1,6})\)")
# Libfabric EFA provider has encountered an internal error:
_HEAD = re.compile(r"\bLibfabric EFA provider has encounter(?:e)?d an internal error:")
# Libfabric error: (5) Input/output error
_ERR = re.compile(r"^\W{0,8}Libfabric error: \((?P<err>-?\d{1,6})\) (?P<text>[^\n]{1,120}?)\s*$")
# EFA internal error: (13) Unresponsive remote (was previously responsive)
_PROV = re.compile(r"^\W{0,8}EFA internal error: \((?P<prov>-?\d{1,6})\) (?P<text>[^\n]{1,160}?)\s*$")
_GATES = ("Unable to write to EQ: ", "Libfabric EFA provider has encounter")


def detect(head: str) -> bool:
    return ("Unable to write to EQ: " in head and _OLD.search(head) is not None) or _HEAD.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    for n, line in iter_lines_with(_GATES, artefact):
        if (m := _OLD.search(line)) is not None:
            result.lines_used += 1
            fb.add(EfaProviderAbort, n, error=int(m["err"]), error_text=m["err_text"].strip(), prov_errno=int(m["prov"]),
                   prov_text=m["prov_text"].strip())
        elif _HEAD.search(line) is not None:
            got: dict[str, re.Match[str]] = {}
            for follow in lines[n:n + 6]:  # a blank, the two error lines, a blank, the abort line
                if (e := _ERR.match(follow)) is not None:
                    got.setdefault("err", e)
                elif (p := _PROV.match(follow)) is not None:
                    got.setdefault("prov", p)
            result.lines_used += 1 + len(got)
            e, p = got.get("err"), got.get("prov")
            fb.add(EfaProviderAbort, n, error=int(e["err"]) if e else None, error_text=e["text"] if e else None,
                   prov_errno=int(p["prov"]) if p else None, prov_text=p["text"] if p else None)
    return result


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (r"Unable to write to EQ: [^\n.]+\. err: ", r"Libfabric EFA provider has encountere?d an internal error:")

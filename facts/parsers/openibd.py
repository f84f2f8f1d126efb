"""``/etc/init.d/openibd start|restart`` (MLNX_OFED, DOCA-OFED): the RDMA driver service that
unloads the inbox RDMA modules and loads the OFED ones, one status per step; the network
operator's DOCA/MOFED driver container runs it and prints its output inside its ``set -x`` trace.

Sample content (Mellanox/doca-driver-build#52: the driver container's trace on an Azure NDm A100 v4
VM, the status marks as GitHub kept them after the colour codes were lost)::

    + output='Unloading HCA driver:[  OK  []
    Failed loading kernel module mlx5_ib:[FAILED[]
    Loading Mellanox MLX5_IB HCA driver:[FAILED[]
    Loading HCA driver and Access Layer:[FAILED[]

Facts: ``kernel_module_load_failure`` (``source: openibd``, reason ``other``: openibd does not say
why; the kernel log does) per ``Failed loading kernel module M`` line. A step marked ``[  OK  ]``
counts as read and gives nothing; a step marked ``[FAILED]`` is left unread: it is the echo of a
module failure beside it, and where none is beside it, an error no rule explains.
The status may stand after spaces (the ``\\033[60G`` column move, rendered), with its colour
codes stripped or left half (``[FAILED[]``). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.kernel import KernelModuleLoadFailure
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "openibd"

# + output='Unloading HCA driver:[  OK  []                  (Mellanox/doca-driver-build#52: bash -x quotes the output)
# Failed loading kernel module mlx5_ib:[FAILED[]
# Loading HCA driver and Access Layer:[FAILED[]
_LINE = re.compile(
    r"^(?:\+ output=')?(?P<step>(?:Failed loading kernel module (?P<module>[\w-]+)"
    r"|(?:Unloading|Loading|Starting|Stopping) [^:\n]*?(?:driver|Access Layer|HCA|modules?)\b[^:\n]*)):"
    r"[ \t]*\[ *(?P<status>OK|FAILED) *\[?\]\]?[ \t]*$",
    re.M,
)


def detect(head: str) -> bool:
    return ("HCA driver" in head or "loading kernel module" in head) and _LINE.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_LINE, artefact):
        if m["status"] == "OK":
            result.lines_used += 1
        elif m["module"]:
            result.lines_used += 1
            fb.add(KernelModuleLoadFailure, n, module=m["module"].replace("-", "_"), reason="other",
                   message=m["step"], source="openibd")
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?m)(?:HCA driver|loading kernel module|Access Layer)[^:\n]*:[ \t]*\[ *(?:OK|FAILED) *\[?\]",)

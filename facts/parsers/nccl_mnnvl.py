"""NCCL's multi-node NVLink (MNNVL) fabric line in an ``NCCL_DEBUG=INFO`` log: each GPU's NVLink fabric
registration and health as NVML gave them to NCCL at communicator init.

NCCL asks NVML for every GPU's fabric info (nvmlDeviceGetGpuFabricInfoV) and, where the GPU has an NVLink
fabric state at all (GB200/GB300 NVL, and HGX Hopper/Blackwell boards, which report a state with a zero
cluster UUID), prints it (src/init.cc, 2.19 on; the same format in every release since)::

    INFO(NCCL_INIT, "MNNVL busId 0x%lx fabric UUID %lx.%lx cliqueId 0x%x state %d healthMask 0x%x", ...)

Sample content (real lines as logs and notes quote them: a B200/H200 host's ``state 3 healthMask 0x0``, a GB200
tray's ``healthMask 0x80``)::

    lccn19:2471267:2471510 [0] NCCL INFO MNNVL busId 0x18000 fabric UUID 0.0 cliqueId 0x0 state 3 healthMask 0x0
    NCCL INFO MNNVL busId 0x1a000 fabric UUID 0.0 cliqueId 0x0 state 3 healthMask 0x80

``state`` is NVML_GPU_FABRIC_STATE_* (1 Not Started, 2 In Progress, 3 Completed; 0 Not Supported is never
printed). ``healthMask`` packs NVML's 2-bit health fields (nvml.h NVML_GPU_FABRIC_HEALTH_MASK_*: shift 0
degraded bandwidth, 2 route recovery in progress, 4 route unhealthy, 6 access timeout recovery; each 0 not
supported, 1 TRUE, 2 FALSE), so 0xaa is every field FALSE (healthy) and 0x80 only the access-timeout field
known and FALSE; the fields above bit 7 (incorrect configuration, R580) are not decoded.

Fact: ``nccl_mnnvl_fabric`` once per (node, GPU, state, mask): the canonical bus id, the state and its name,
the mask as printed, the health fields that are TRUE, the clique id and whether the cluster UUID is zero.
``lines_used`` is 0: the nccl_log parser counts NCCL-prefixed lines of the same file. The ``MNNVL diag ...
peer rank`` lines of NCCL 2.28's failed MNNVL set-up describe other nodes' GPUs by host hash: not read.
"""
from __future__ import annotations

import re

import re2

from stethoscope.facts import classify
from stethoscope.facts.ids import nccl_busid
from stethoscope.facts.kinds.nccl import NcclMnnvlFabric  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, lines_with
from stethoscope.facts.parsers.nccl_log import line_counter

KIND = "nccl_mnnvl"

# lccn19:2471267:2471510 [0] NCCL INFO MNNVL busId 0x18000 fabric UUID 0.0 cliqueId 0x0 state 3 healthMask 0x0
_MESSAGE = (r"MNNVL busId 0x(?P<bus>[0-9a-fA-F]+) fabric UUID (?P<uuid0>-?[0-9a-fA-F]+)\.(?P<uuid1>-?[0-9a-fA-F]+) "
            r"cliqueId 0x(?P<clique>[0-9a-fA-F]+) state (?P<state>\d+) healthMask 0x(?P<mask>[0-9a-fA-F]+)")
_DETECT = re.compile(r"(?:NCCL INFO |^)" + _MESSAGE, re.M)
# NCCL's prefix (src/debug.cc "%s:%d:%d [%d] NCCL INFO "), whatever came before it, or the bare message
_LINE = re.compile(
    r"^(?:.*?(?<![\w.\-])(?P<host>[\w.\-]+):(?P<pid>\d+):\d+ \[(?P<dev>-?\d+)\] (?:\S+:\d+ )?NCCL INFO |(?:.*?NCCL INFO )?)"
    + _MESSAGE + r"\s*$"
)
_LITERALS = ("MNNVL busId 0x",)
_LITERAL_GATES = tuple(re2.compile(re.escape(lit)) for lit in _LITERALS)
TEXT_GATES = _LITERAL_GATES

#: NVML_GPU_FABRIC_STATE_* (nvml.h)
STATES = {1: "Not Started", 2: "In Progress", 3: "Completed"}
#: NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_* -> what its field says when TRUE (1)
HEALTH_FIELDS = ((0, "degraded bandwidth"), (2, "route recovery in progress"), (4, "route unhealthy"),
                 (6, "access timeout recovery"))


def detect(head: str) -> bool:
    pos = head.find(_LITERALS[0])
    while pos != -1:
        end = head.find("\n", pos)
        end = len(head) if end == -1 else end
        if _LINE.match(head[head.rfind("\n", 0, pos) + 1:end]):
            return True
        pos = head.find(_LITERALS[0], end + 1)
    return False


def health_problems(mask: int) -> list[str]:
    """The health fields of NVML's mask that are TRUE (value 1 in their two bits)."""
    return [name for shift, name in HEALTH_FIELDS if (mask >> shift) & 0x3 == 1]


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    text = artefact.text
    if classify.gate(text, _LITERAL_GATES[0]) is False:
        return result
    # one substring search over the text (its lines are few: one per GPU and communicator); the routed runs of
    # nccl_log_scan hold only the lines its companions ask for
    line_of = line_counter(text)
    seen: set[tuple] = set()
    for start, line in lines_with(text, _LITERALS):
        m = _LINE.match(line)
        if m is None:
            continue
        node = artefact.node_for(m["host"]) if m["host"] else artefact.node
        bus, state, mask = nccl_busid(m["bus"]), int(m["state"]), int(m["mask"], 16)
        key = (node, bus, state, mask)
        if key in seen:
            continue  # every communicator of the process prints it again: the first line is cited
        seen.add(key)
        problems = health_problems(mask)
        fb.add(NcclMnnvlFabric, line_of(start), node=node, text=line[:-1] if line[-1:] == "\r" else line,
               pid=int(m["pid"]) if m["pid"] else None, local_device=int(m["dev"]) if m["dev"] else None,
               bus_id=bus, state=state, state_name=STATES.get(state, "unknown"), health_mask=f"0x{m['mask']}",
               health_problems=", ".join(problems), health_problem_count=len(problems), clique_id=f"0x{m['clique']}",
               cluster_uuid_zero=m["uuid0"].lstrip("-0") == "" and m["uuid1"].lstrip("-0") == "")
    result.lines_used = 0  # see the module docstring: nccl_log counts these lines
    return result


#: the line signatures this reader owns (facts/classify.py)
SIGNATURES = (_DETECT,)

"""``rdma link`` / ``rdma link show`` (iproute2's RDMA tool): one line per RDMA port with its
logical and physical state, and for an InfiniBand port its subnet prefix, LID and the subnet
manager's LID; a port with a network interface names it (``netdev``).

Sample content (the RPMem shuffle guide of Intel-bigdata/OAP, an older iproute2 that numbers each line
``dev/port:``; the InfiniBand form as iproute2's rdma/link.c prints it, its ``pr_out`` formats filled: ``link %s/%u ``,
``subnet_prefix %s `` of ``%04x:%04x:%04x:%04x``, ``lid %u ``, ``sm_lid %u ``, ``lmc %u ``, ``state %s ``,
``physical_state %s ``)::

    link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 12 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP
    2/1: mlx5_0/1: state DOWN physical_state DISABLED netdev ens803f0
    3/1: mlx5_1/1: state ACTIVE physical_state LINK_UP netdev ens803f1

Facts: ``ib_port`` per line (``source: rdma_link``), the state words of iproute2 (rdma/link.c
``link_state_to_str``: DOWN INIT ARMED ACTIVE ACTIVE_DEFER; ``phys_state_to_str``: SLEEP POLLING
DISABLED ARMED LINK_UP LINK_ERROR_RECOVER PHY_TEST) turned into ibstat's (Down, Initializing, ...,
LinkUp; iproute2's physical "ARMED" is IBTA state 4, PortConfigurationTraining). The kernel sends
the subnet prefix and LIDs only for an InfiniBand port (drivers/infiniband/core/nldev.c
``fill_port_info``: ``rdma_protocol_ib``), so a line with a ``lid`` is InfiniBand and one without
is Ethernet (RoCE, iWARP). A line cut inside its physical state keeps its logical state. Empty
output: no RDMA device (a host or container with none visible).
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches
from stethoscope.facts.parsers.ib_facts import IbPort, port_id

KIND = "rdma_link"

# link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 12 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP   (rdma/link.c's formats filled)
# link mlx5_2/1 state ACTIVE physical_state LINK_UP netdev eth2                                              (the same, a RoCE port)
# 2/1: mlx5_0/1: state DOWN physical_state DISABLED netdev ens803f0                                          (Intel-bigdata/OAP RPMem shuffle guide)
_LINE = re.compile(
    r"^(?:link +|\d+/\d+: )(?P<dev>[A-Za-z][\w.-]*)/(?P<port>\d+):? +"
    r"(?:subnet_prefix \S+ +)?(?:lid (?P<lid>\d+) +)?(?:sm_lid (?P<sm_lid>\d+) +)?(?:lmc \d+ +)?"
    r"state (?P<state>[A-Z_]+)(?: +physical_state (?P<phys>[A-Z_]+))?",
    re.M,
)

_STATES = {"DOWN": "Down", "INIT": "Initializing", "ARMED": "Armed", "ACTIVE": "Active", "ACTIVE_DEFER": "ActiveDefer"}
_PHYS = {"SLEEP": "Sleep", "POLLING": "Polling", "DISABLED": "Disabled", "ARMED": "PortConfigurationTraining",
         "LINK_UP": "LinkUp", "LINK_ERROR_RECOVER": "LinkErrorRecovery", "PHY_TEST": "PhyTest"}


def detect(head: str) -> bool:
    return "state " in head and _LINE.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_LINE, artefact):
        state = _STATES.get(m["state"])
        if state is None:
            fb.error(n, f"rdma link: port state {m['state']!r} is not one iproute2 prints")
            continue
        result.lines_used += 1
        dev, port = m["dev"], int(m["port"])
        lid = int(m["lid"]) if m["lid"] is not None else None
        # "NOP" (an iWARP port, which has no IB physical state) and a word cut short: no physical state
        fb.add(IbPort, n, hca=dev, port=port, port_id=port_id(artefact.node, dev, port), state=state,
               physical_state=_PHYS.get(m["phys"] or ""), link_layer="InfiniBand" if lid is not None else "Ethernet",
               lid=lid, sm_lid=int(m["sm_lid"]) if m["sm_lid"] is not None else None, source="rdma_link")
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?m)^(?:link +|\d+/\d+: )[A-Za-z][\w.-]*/\d+:? +[^\n]*?\bstate [A-Z]",)

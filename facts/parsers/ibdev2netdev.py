"""``ibdev2netdev`` (MLNX_OFED / rdma-core script): which network interface each HCA port has.

Sample content (imbue-ai/cluster-health#4, 8 x CX-7 H100 host; sriov-network-operator#382)::

    mlx5_0 port 1 ==> ibp26s0 (Down)
    mlx5_1 port 1 ==> enp27s0f0np0 (Up)
    mlx5_3 port 1 ==> net1 (Down)

Facts: ``ib_netdev`` per line. ``(Up)``/``(Down)`` is the state of the *IP interface*
(IPoIB or Ethernet), not of the IB link: a pure-IB fabric without IPoIB shows ``Down`` on
healthy ports, so no rule reads it as a link fault. ``| column -t`` output (several spaces)
and a trailing ``# comment`` are accepted. Empty output: no RDMA device.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches
from stethoscope.facts.parsers.ib_facts import IbNetdev, port_id

KIND = "ibdev2netdev"

# mlx5_0 port 1 ==> ibp26s0 (Down)
# mlx5_1   port  1  ==>  enp27s0f0np0   (Up)    # CX-6 2/2 *ethernet* port 1/2
_LINE = re.compile(r"^(?P<hca>[A-Za-z][\w-]*)\s+port\s+(?P<port>\d+)\s+==>\s+(?P<netdev>\S+)\s+\((?P<state>Up|Down)\)[^\n]*$", re.M)


def detect(head: str) -> bool:
    return "==>" in head and bool(_LINE.search(head))  # "==>": a cheap gate


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_LINE, artefact):
        p = int(m["port"])
        fb.add(IbNetdev, n, hca=m["hca"], port=p, port_id=port_id(artefact.node, m["hca"], p), netdev=m["netdev"], netdev_up=m["state"] == "Up")
        result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_LINE,)

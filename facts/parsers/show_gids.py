"""``show_gids`` (MLNX_OFED / mlnx-tools): the GID table of every RDMA port, with the IPv4
address and RoCE version of each entry and its network device.

Sample content (Mellanox/mlnx-tools#58: the script's header lines; NVIDIA/nccl#1510: rows with an
IPv4-mapped GID; Mellanox/k8s-rdma-sriov-dev-plugin#30: a pod that sees none)::

    DEV	PORT	INDEX	GID					IPv4  		VER	DEV
    ---	----	-----	---					------------  	---	---
    mlx5_0  1       4       0000:0000:0000:0000:0000:ffff:0a0c:0015 10.12.0.21      v1      net1
    mlx5_0  1       5       0000:0000:0000:0000:0000:ffff:0a0c:0015 10.12.0.21      v2      net1
    n_gids_found=0

Facts: ``ib_gid`` per row (``source: show_gids``), ``ib_gid_count`` per ``n_gids_found=N``
footer (a table the script printed whole: ``count`` 0 means no port has a GID, so RoCE cannot
address any). A row whose PORT or INDEX is not a number is a parse error. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import IbGidCount  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches
from stethoscope.facts.parsers.ibv_devinfo import IbGid, ipv4_of

KIND = "show_gids"

# DEV	PORT	INDEX	GID					IPv4  		VER	DEV
_HEADER = r"^DEV\s+PORT\s+INDEX\s+GID\s+IPv4\s+VER\s+DEV\s*$"
# mlx5_0  1       5       0000:0000:0000:0000:0000:ffff:0a0c:0015 10.12.0.21      v2      net1   (NVIDIA/nccl#1510)
# mlx5_0	1	4	fe80:0000:0000:0000:a4ed:ccff:fe8b:1994			v1	net1
_LINE = re.compile(
    _HEADER + r"|^-{3}\s+-{4}\s+-{5}\s+-{3}\s+-+\s+-{3}\s+-{3}\s*$"
    r"|^n_gids_found=(?P<count>\d+)\s*$"
    r"|^(?P<dev>[A-Za-z][\w.-]*)\s+(?P<port>\S+)\s+(?P<index>\S+)\s+(?P<gid>[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){7})"
    r"(?:\s+(?P<ipv4>\d{1,3}(?:\.\d{1,3}){3}))?\s+(?P<ver>v[12])(?:\s+(?P<netdev>\S+))?\s*$",
    re.M,
)
_DETECT = re.compile(_HEADER + r"|^n_gids_found=\d+\s*$", re.M)


def detect(head: str) -> bool:
    return ("n_gids_found=" in head or "INDEX" in head) and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_LINE, artefact):
        result.lines_used += 1
        if m["count"] is not None:
            fb.add(IbGidCount, n, count=int(m["count"]))
        elif m["dev"] is not None:
            if not (m["port"].isdecimal() and m["index"].isdecimal()):
                fb.error(n, f"show_gids: port {m['port']!r} or index {m['index']!r} is not a number")
                continue
            fb.add(IbGid, n, hca=m["dev"], port=int(m["port"]), index=int(m["index"]), gid=m["gid"],
                   ipv4=m["ipv4"] or ipv4_of(m["gid"]), version=m["ver"], netdev=m["netdev"], source="show_gids")
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_DETECT,)

"""``nvidia-imex-ctl -N``: the IMEX domain of a multi-node NVLink system as one node's IMEX daemon sees it.

On GB200/GB300 NVL72 racks (and other multi-node NVLink systems) ``nvidia-imex`` runs on every node of an
IMEX domain, on the host or in the DRA driver's ComputeDomain daemon pods; ``nvidia-imex-ctl -N`` asks the
local daemon for the domain: the connectivity table's legend, the time, each node of the node configuration
file with its daemon's status (and, from R570's later releases, its version), the matrix of connections
between the nodes and the domain's state. NVIDIA's IMEX guide and the providers' bring-up pages check it
after a rack's set-up ("C for all nodes", "Domain State: UP"). Sample content (the DRA driver's developer's
repro, github.com/jgehrcke/jpsnips-nv repros/imex-1node-fabric-hdl-import101/README.md, two GH200 nodes,
driver 570; the AWS ParallelCluster guide's "Validate IMEX Setup" prints the same table for 18 GB200 trays
with ``- Version: 570.172`` after each status and the legend's ``!V!``/``!M!`` rows)::

    Connectivity Table Legend:
    I - Invalid - Node wasn't reachable, no connection status available
    N - Never Connected
    R - Recovering - Connection was lost, but clean up has not yet been triggered.
    D - Disconnected - Connection was lost, and clean up has been triggreed.
    A - Authenticating - If GSSAPI enabled, client has initiated mutual authentication.
    C - Connected - Ready for operation

    3/25/2025 10:42:08.082
    Nodes:
    Node #0   - 10.136.206.47   - READY
    Node #1   - 10.136.206.48   - READY

     Nodes From\\To  0  1
           0        C  C
           1        C  C
    Domain State: UP

The daemon statuses and domain states are those DCGM reads from the same tool (NVIDIA/DCGM
dcgmlib/dcgm_fields.h, DCGM_FI_IMEX_DOMAIN_STATUS "UP, DOWN, DEGRADED" from ``nvidia-imex-ctl -N -j`` and
DCGM_FI_IMEX_DAEMON_STATUS "INITIALIZING, STARTING_AUTH_SERVER, WAITING_FOR_PEERS, WAITING_FOR_RECOVERY,
INIT_GPU, READY, SHUTTING_DOWN, UNAVAILABLE" from ``nvidia-imex-ctl -q``). nvidia-imex is closed source:
the forms are read as the real outputs print them.

Fact: ``imex_domain_status`` per table: the domain's state (None where the paste stops before it), the nodes
listed and how many are READY, the matrix cells read and how many are C, and the nodes that are not READY
or have a cell other than C in their row or column, citing the ``Domain State:`` line (else the first row
that shows a problem, else the ``Nodes:`` line). ``nvidia-imex-ctl`` run without a configuration file
(``Unable to open configuration file at /etc/nvidia-imex/config.cfg`` and its usage text,
bottlerocket-os/bottlerocket-kernel-kit#204: the binaries of a host whose daemon the DRA driver configures)
queried no daemon: its lines are read and a ``query_refused`` limit says so. The JSON form (``-N -j``) is
not read.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.gpu import ImexDomainStatus
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "imex_ctl"

# Connectivity Table Legend:
_LEGEND = re.compile(r"^Connectivity Table Legend:[ \t]*$", re.M)
# I - Invalid - Node wasn't reachable, no connection status available       !V! - Version mismatch, communication disabled.
_LEGEND_ROW = re.compile(r"^(?:[INRDAC]|![VM]!) - [A-Z][a-z]+")
# Node #0   - 10.136.206.48   - READY                     (jpsnips-nv, driver 570.00)
# Node #10  - 172.31.54.95    - READY                - Version: 570.172      (AWS ParallelCluster guide)
_NODE = re.compile(r"^Node #(?P<idx>\d{1,4})\s+-\s+(?P<addr>\S+).*?\s+-\s+(?P<status>[A-Z][A-Z_]*[A-Z])"
                   r"(?:\s+-\s+Version:[ \t]*(?P<version>\S*))?\s*$")
#  Nodes From\To  0   1   2   3   4   5   6   7   8   9   10  11  12  13  14  15  16  17
_HEADER = re.compile(r"^[ \t]*Nodes From\\To(?P<cols>(?:[ \t]+(?:\d{1,4}|\.\.\.))+)[ \t]*$", re.M)
#       0        C   C   C   N ... N        (a row of the matrix; '...' where a paste elided columns)
_ROW = re.compile(r"^[ \t]*(?P<src>\d{1,4})(?P<cells>(?:[ \t]+(?:[CNRDAI]|![VM]!|\.\.\.))+)[ \t]*$")
# Domain State: UP
_DOMAIN = re.compile(r"^Domain State:[ \t]*(?P<state>[A-Z]+)[ \t]*$", re.M)
# Unable to open configuration file at /etc/nvidia-imex/config.cfg          (bottlerocket-os/bottlerocket-kernel-kit#204)
_NO_CONFIG = re.compile(r"^Unable to open configuration file at (?P<path>\S+)[ \t]*$", re.M)
# Usage: nvidia-imex-ctl [-i <IP> <PORT>|-u <unix domain socket path>|-c <nvidia-imex config.cfg path>] <-n|-N|-q|-s|-d|-m> [-t <timeout>]
_USAGE = re.compile(r"^Usage: nvidia-imex-ctl ", re.M)
#        -i <IP> <PORT>: Connect to the IMEX daemon's control service at the specified ip address and port.
_USAGE_ROW = re.compile(r"^(?:Where:|[ \t]+-[a-zA-Z] .*)")
# 3/25/2025 10:39:43.659
_TIME = re.compile(r"^\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d{2}:\d{2}(?:\.\d+)?[ \t]*$")


def detect(head: str) -> bool:
    if "Nodes From\\To" in head and _HEADER.search(head) is not None:
        return True
    if "Connectivity Table Legend:" in head and _LEGEND.search(head) is not None:
        return True
    return ("nvidia-imex-ctl" in head and _USAGE.search(head) is not None) or (
        "Domain State:" in head and _DOMAIN.search(head) is not None and "Node #" in head)


class _Table:
    def __init__(self, line: int) -> None:
        self.line = line
        self.nodes: dict[int, tuple[int, str, str]] = {}  # index -> (line, address, status)
        self.versions: list[str] = []
        self.cols: list[str] = []
        self.cells: list[tuple[int, int, int | None, str]] = []  # (line, from, to or None, state)
        self.state: str | None = None
        self.state_line = 0


def _emit(b: FactBuilder, t: _Table) -> None:
    if not t.nodes and not t.cells and t.state is None:
        return
    problems: dict[int, list[str]] = {}
    first_problem = 0
    for idx, (line, addr, status) in sorted(t.nodes.items()):
        if status != "READY":
            problems.setdefault(idx, []).append(f"{addr} {status}")
            first_problem = first_problem or line
    for line, src, dst, state in t.cells:
        if state != "C":
            where = f"{src}->{dst} {state}" if dst is not None else f"{src}-> {state}"
            problems.setdefault(src, []).append(where)
            if dst is not None and dst != src:
                problems.setdefault(dst, []).append(where)
            first_problem = first_problem or line
    # a node of an 18-tray rack that is down touches 35 cells: three named, the rest counted
    named = []
    for i, p in sorted(problems.items()):
        p = list(dict.fromkeys(p))
        named.append(f"#{i} ({'; '.join(p[:3])}{f'; +{len(p) - 3} more' if len(p) > 3 else ''})")
    b.add(ImexDomainStatus, t.state_line or first_problem or t.line, state=t.state, nodes=len(t.nodes),
          nodes_ready=sum(1 for _, _, s in t.nodes.values() if s == "READY"), links=len(t.cells),
          links_connected=sum(1 for c in t.cells if c[3] == "C"), problem_nodes=", ".join(named),
          problem_count=len(named), versions=", ".join(dict.fromkeys(t.versions)))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    table: _Table | None = None
    in_legend = in_usage = False
    for no, line in enumerate(artefact.lines, 1):
        text = line.rstrip()
        if text.startswith("Connectivity Table Legend:"):
            if table is not None:
                _emit(b, table)
            table, in_legend = _Table(no), True
        elif in_legend and _LEGEND_ROW.match(text):
            pass
        elif (m := _NO_CONFIG.match(text)) is not None:
            in_usage = True
            b.limit(no, "query_refused", f"nvidia-imex-ctl could not open its configuration file ({m['path']}): "
                    "no IMEX daemon was asked for the domain's state")
        elif text.startswith("Usage: nvidia-imex-ctl "):
            in_usage = True
        elif in_usage and _USAGE_ROW.match(text):
            pass
        elif text == "Nodes:" or (table is not None and _TIME.match(text)):
            table = table or _Table(no)
        elif text.startswith("Node #") and (m := _NODE.match(text)) is not None:
            table = table or _Table(no)
            table.nodes[int(m["idx"])] = (no, m["addr"], m["status"])
            if m["version"]:
                table.versions.append(m["version"])
        elif "Nodes From\\To" in text and (m := _HEADER.match(text)) is not None:
            table = table or _Table(no)
            table.cols = m["cols"].split()
        elif table is not None and table.cols and (m := _ROW.match(text)) is not None:
            cells = m["cells"].split()
            # a column's node is known only where the header names every column the row has ('...' elides some)
            mapped = "..." not in table.cols and "..." not in cells and len(cells) == len(table.cols)
            for i, state in enumerate(cells):
                if state != "...":
                    table.cells.append((no, int(m["src"]), int(table.cols[i]) if mapped else None, state))
        elif text.startswith("Domain State:") and (m := _DOMAIN.match(text)) is not None:
            table = table or _Table(no)
            table.state, table.state_line = m["state"], no
            _emit(b, table)
            table = None
        else:
            if text.strip():
                in_legend = in_usage = False
            continue
        if text.strip():
            result.lines_used += 1
    if table is not None:
        _emit(b, table)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
SIGNATURES = (_HEADER, _LEGEND, _USAGE, _DOMAIN)

"""Kernel log lines of the ConnectX driver (``mlx5_core``): firmware commands that failed.

Sample content (leptonai/gpud#1164, journald; the mlx5 driver's ``mlx5_cmd_out_err`` /
older ``mlx5_cmd_check`` message, prefixed by ``mlx5_core_err``'s ``func:line:(pid N): ``)::

    Dec 02 09:56:04 node1 kernel: mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid 1441871): ACCESS_REG(0x805) op_mod(0x1) failed, status bad operation(0x2), syndrome (0x9a6171), err(-22)

The line is found under any prefix (dmesg stamps, syslog, journald, Talos); the kernel log
parser reads the same file for NVIDIA's and the PCIe lines. Facts: ``mlx5_cmd_failed``, one
per line, with the command, its opcode, ``op_mod`` (for ACCESS_REG 1 is a read, 0 a write),
the firmware's status and syndrome, and the HCA's PCI bus id. A log without such lines
yields nothing.
"""
from __future__ import annotations

import re
from typing import Literal

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.model import Fact, fact_kind
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "mlx5_core_log"

# mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid 1441871): ACCESS_REG(0x805) op_mod(0x1) failed, status bad operation(0x2), syndrome (0x9a6171), err(-22)
_CMD = re.compile(
    r"mlx5_core (?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): (?:(?P<func>\w+):\d+:\(pid \d+\): )?"
    r"(?P<cmd>[A-Z0-9_]+)\(0x(?P<opcode>[0-9a-fA-F]+)\) op_mod\(0x(?P<op_mod>[0-9a-fA-F]+)\) failed, "
    r"status (?P<status>[^(,]+?)\(0x(?P<status_code>[0-9a-fA-F]+)\), syndrome \(0x(?P<syndrome>[0-9a-fA-F]+)\)"
)
# Dec 02 09:56:04 node1 kernel: ...   /   2025-12-02T09:56:04+0000 node1 kernel: ...
_HOST = re.compile(r"^(?:[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\S+) (?P<host>\S+) kernel: ")


@fact_kind
class Mlx5CmdFailed(Fact):
    """``ACCESS_REG(0x805) op_mod(0x1) failed, status bad operation(0x2), syndrome (0x9a6171)``:
    the HCA's firmware refused a command the driver passed on."""

    kind: Literal["mlx5_cmd_failed"] = "mlx5_cmd_failed"
    pci_bus_id: str
    command: str  # "ACCESS_REG"
    opcode: int  # 0x805
    op_mod: int
    register_read: bool  # ACCESS_REG with op_mod 1: a register read (a query), not a write
    status: str  # "bad operation", "bad parameter", ...
    status_code: int
    syndrome: str  # "0x9a6171"
    function: str | None = None  # "mlx5_cmd_out_err"


def detect(head: str) -> bool:
    return "mlx5_core " in head and " failed, status " in head and bool(_CMD.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines(_CMD, artefact):
        m = _CMD.search(line)
        bus = try_pci_bus_id(m["bdf"])
        if bus is None:
            fb.error(n, f"mlx5_core: unreadable PCI address {m['bdf']!r}")
            continue
        host = _HOST.match(line)
        op_mod = int(m["op_mod"], 16)
        fb.add(Mlx5CmdFailed, n, node=artefact.node_for(host["host"] if host else None), pci_bus_id=bus,
               command=m["cmd"], opcode=int(m["opcode"], 16), op_mod=op_mod,
               register_read=m["cmd"] == "ACCESS_REG" and op_mod == 1, status=m["status"].strip(),
               status_code=int(m["status_code"], 16), syndrome=f"0x{m['syndrome'].lower()}", function=m["func"])
        result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_CMD,)

"""An RDMA port's counters read from sysfs: ``/sys/class/infiniband/<hca>/ports/<n>/hw_counters/*``
(the driver's transport, completion-error and congestion counters) and ``.../counters/*`` (the
IBTA PortCounters), in the shapes operators paste them.

Sample content (``grep "" /sys/class/infiniband/mlx5_0/ports/1/hw_counters/*``, NVIDIA/nccl#394;
the ``for`` loop of AMD's ERNIC guide PG332 run inside the folder)::

    /sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err:91316
    /sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:6140236
    $ cd /sys/class/infiniband/mlx5_0/ports/1/hw_counters/
    duplicate_request:0
    rx_write_requests:108307999

Also ``path value`` (``for f in .../*; do echo $f $(cat $f); done``), ``cat <path>`` with the count
on the next line, and ``name: value``. A bare
name line is read only when the name is a known counter; its port is the one the last
``cd`` or path named (none: the device is unknown). Facts, per port and reading:
``rdma_hw_counters`` (source sysfs) for the hw_counters, ``ib_port_counters`` (source sysfs) for
the PortCounters; evidence: the reading's first line. A counter seen again for the same port, or a
``date`` line, starts the next reading (a before/after pair gives growth; ``time_s`` from the
``date`` above it). A path line whose value is not a number is a ParseError. Empty: nothing read.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import (
    HW_COUNTERS_OTHER, SYSFS_COUNTER_FIELDS, SYSFS_COUNTERS_OTHER, IbPortCounters, RdmaHwCounters, errors_listed, hw_counter_fields,
    port_id,
)
from stethoscope.facts.parsers.perfquery import DATE_LINE, date_time

KIND = "sysfs_ib_counters"

# /sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err:91316      (grep "" ..., NVIDIA/nccl#394)
# /sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error 0                       (echo $f $(cat $f))
# The device's own sysfs folder under its PCI path, and the kernel's "N/A (no PMA)" for a PortCounters file of a device
# with no performance management agent to ask (drivers/infiniband/core/sysfs.c show_pma_counter: no process_mad, and in
# later kernels a query that failed): iWARP (i40iw, irdma), RoCE-only and cloud devices. Not a count and no error of the
# port: the line is read and makes no fact.
# /sys/devices/pci0000:05/0000:05:02.0/0000:07:00.0/0000:08:03.0/0000:09:00.0/infiniband/i40iw0/ports/1/counters/link_downed:N/A (no PMA)
#   (prometheus/node_exporter#966: grep -s . of an Intel X722's i40iw0 port counters)
_PATH_VALUE = re.compile(
    r"(?:^|\s)/sys/(?:class|devices(?:/[\w:.-]{1,64}){1,12})/infiniband/(?P<hca>[\w.-]+)/ports/(?P<port>\d+)/(?:hw_)?counters/"
    r"(?P<name>\w+)(?::\s*|\s+)(?P<value>N/A \(no PMA\)|\S+)\s*$")
_NO_PMA = "N/A (no PMA)"
# $ cd /sys/class/infiniband/mlx5_0/ports/1/hw_counters/                            (AMD ERNIC guide PG332)
_FOLDER = re.compile(r"/sys/class/infiniband/(?P<hca>[\w.-]+)/ports/(?P<port>\d+)/(?:hw_)?counters/?(?:[\s*;]|$)")
# $ cat /sys/class/infiniband/mlx5_13/ports/1/hw_counters/local_ack_timeout_err      (a runbook's check; the value on the next line)
_CAT = re.compile(r"\bcat\s+/sys/class/infiniband/(?P<hca>[\w.-]+)/ports/(?P<port>\d+)/(?:hw_)?counters/(?P<name>\w+)\s*$")
_NUMBER = re.compile(r"^\s*(?P<value>\d+)\s*$")
# duplicate_request:0      rx_write_requests:108307999                              (AMD ERNIC guide PG332)
_BARE = re.compile(r"^\s*(?P<name>[A-Za-z]\w*)\s*:\s*(?P<value>\d+)\s*$")

_HW = hw_counter_fields()
_KNOWN = _HW | HW_COUNTERS_OTHER | frozenset(SYSFS_COUNTER_FIELDS) | SYSFS_COUNTERS_OTHER
#: counters whose bare lines alone make a file this reader's (three of them, in any order)
_CORE = ("local_ack_timeout_err", "out_of_sequence", "packet_seq_err", "duplicate_request", "implied_nak_seq_err",
         "rnr_nak_retry_err", "out_of_buffer", "symbol_error", "port_rcv_errors", "link_downed")
_DETECT_PATH = re.compile(r"/sys/class/infiniband/[\w.-]+/ports/\d+/(?:hw_)?counters/\w+(?::\s*|\s+|\s*\n\s*)\d+\s*$", re.M)
_DETECT_NO_PMA = re.compile(r"/infiniband/[\w.-]+/ports/\d+/counters/\w+(?::\s*|\s+)N/A \(no PMA\)\s*$", re.M)
_DETECT_BARE = re.compile(r"^(?:%s)\s*:\s*\d+\s*$" % "|".join(_CORE), re.M)


def detect(head: str) -> bool:
    if "/sys/class/infiniband/" in head and _DETECT_PATH.search(head):
        return True
    if _NO_PMA in head and _DETECT_NO_PMA.search(head):
        return True
    return "_" in head and len({m.group(0).split(":")[0].strip() for m in _DETECT_BARE.finditer(head)}) >= 3


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    readings: dict[tuple, int] = {}
    blocks: dict[tuple, dict] = {}  # open reading per (hca, port)
    order: list[tuple] = []
    where: tuple = (None, None)
    when: float | None = None

    def close(key: tuple) -> None:
        b = blocks.pop(key, None)
        if b is None:
            return
        hca, port = key
        n = readings.get(key, 0)
        readings[key] = n + 1
        pid = port_id(artefact.node, hca or "?", port if port is not None else "?")  # type: ignore[arg-type]
        if b["hw"]:
            fb.add(RdmaHwCounters, b["hw_line"], hca=hca, port=port, port_id=pid, reading=n, time_s=b["time"], source="sysfs",
                   errors_listed=errors_listed(b["hw"]), **b["hw"])
        if b["pma"]:
            fb.add(IbPortCounters, b["pma_line"], hca=hca, port=port if port is not None else 0, port_id=pid if hca else None,
                   reading=n, time_s=b["time"], source="sysfs", **b["pma"])

    def take(key: tuple, n: int, name: str, value: int) -> None:
        b = blocks.get(key)
        if b is not None and name in b["seen"]:
            close(key)  # the same counter again: the next reading of this port
            b = None
        if b is None:
            b = blocks[key] = {"seen": set(), "hw": {}, "pma": {}, "hw_line": n, "pma_line": n, "time": when}
            order.append(key)
        b["seen"].add(name)
        if name in _HW:
            if not b["hw"]:
                b["hw_line"] = n
            b["hw"][name] = value
        elif name in SYSFS_COUNTER_FIELDS:
            if not b["pma"]:
                b["pma_line"] = n
            b["pma"][SYSFS_COUNTER_FIELDS[name]] = value

    pending: tuple | None = None  # (hca, port, name) of a `cat` whose output is the next line
    for n, line in enumerate(artefact.lines, 1):
        if pending is not None:
            m = _NUMBER.match(line)
            if m and pending[2] in _KNOWN:
                result.lines_used += 1
                take((pending[0], pending[1]), n, pending[2], int(m["value"]))
            pending = None
            if m:
                continue
        m = _CAT.search(line)
        if m:
            pending = (m["hca"], int(m["port"]), m["name"])
            continue
        if DATE_LINE.match(line):
            try:
                when = date_time(line)
            except ValueError:
                fb.error(n, f"sysfs counters: {line.strip()!r} is not a date and time")
                continue
            for key in list(blocks):
                close(key)
            result.lines_used += 1
            continue
        m = _PATH_VALUE.search(line)
        if m:
            if m["name"] not in _KNOWN:
                continue
            if m["value"] == _NO_PMA:  # no agent to ask: no count, and no error of the port
                result.lines_used += 1
                continue
            if not m["value"].isdecimal():
                fb.error(n, f"sysfs counters: {m['name']} of {m['hca']} port {m['port']} is {m['value']!r}, not a count")
                continue
            result.lines_used += 1
            take((m["hca"], int(m["port"])), n, m["name"], int(m["value"]))
            continue
        m = _FOLDER.search(line)
        if m:
            where = (m["hca"], int(m["port"]))
            continue
        m = _BARE.match(line)
        if m and m["name"] in _KNOWN:
            result.lines_used += 1
            take(where, n, m["name"], int(m["value"]))
    for key in list(blocks):
        close(key)
    return result


#: the line signatures this reader owns (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT_PATH, _DETECT_BARE, _DETECT_NO_PMA)

"""``ethtool -S <iface>``: a NIC's statistics; read for the physical port's counters of mlx5
(ConnectX) NICs, the ones that say how the link and its flow control behave.

Sample content (isc-projects/ethq#8, ConnectX-4, mlx5_core; the ``_phy`` and pause-storm names
as the kernel's mlx5 counters.rst and en_stats.c spell them)::

    $ ethtool -S ens1f0
    NIC statistics:       (absent when the paste is ``ethtool -S ens1f0 | grep -i pause``)
         rx_packets: 845320277
         tx_queue_stopped: 0
         rx_crc_errors_phy: 0
         link_down_events_phy: 0
         tx_pause_storm_warning_events: 0

Facts: one ``link_counter`` (tool ethtool) per counter of the physical port above zero: the
names ending ``_phy`` (``rx_crc_errors_phy``, ``rx_symbol_err_phy``, ``link_down_events_phy``,
``rx_discards_phy``, ``rx_pause_ctrl_phy``), ``rx_prioN_pause*``, ``tx_pause_storm_*_events``
and ``rx_out_of_buffer``, with ``rx_packets`` of the same interface where that is above zero (the
packets the receive queues took: the share's base). A counter at zero says nothing happened and makes no fact; the
software and per-queue counters (``rx3_packets``) are read and left. The interface comes from
the command line when it was captured, else from an sosreport's file name
(``sos_commands/networking/ethtool_-S_<if>``, pasted whole or through a grep of it), else it is
``unknown``.

An sosreport's file grepped (ryran/xsos#112)::

    $ grep pause sos_commands/networking/ethtool_-S_eth1
         rx_pause_frames: 95331
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.kinds.network import LinkCounter

KIND = "ethtool_stats"

# $ ethtool -S ens1f0
# root@node3:~# ethtool -S ens1f0 | grep -i pause
_COMMAND = re.compile(r"^(?:.*?[$#]\s*)?(?:sudo\s+)?(?:\S*/)?ethtool\s+(?:-S|--statistics)\s+(?P<iface>[\w.:@-]+)")
# $ grep pause sos_commands/networking/ethtool_-S_eth1
_SOS_GREP = re.compile(r"^(?:.*?[$#]\s*)?(?:sudo\s+)?e?grep\s[^|\n]{0,200}?\bethtool_-S_(?P<iface>[\w.:@-]+)")
#: sos_commands/networking/ethtool_-S_ens1f0np0 (an sosreport's file of ``ethtool -S ens1f0np0``)
_SOS_FILE = re.compile(r"(?:^|/)ethtool_-S_(?P<iface>[\w.:@-]+)$")
# NIC statistics:
_HEAD = re.compile(r"^NIC statistics:\s*$", re.M)
#      rx_crc_errors_phy: 0
#      tx_pause_storm_warning_events: 0
_COUNTER = re.compile(r"^\s+(?P<name>[A-Za-z][\w.\[\]-]*): (?P<value>\d+)\s*$")
#: the physical port's counters (mlx5 counters.rst "Physical Port Counters", "Priority Port Counters")
_PORT_COUNTER = re.compile(r"_phy$|^rx_prio\d_pause|^tx_prio\d_pause|^tx_pause_storm_(?:warning|error)_events$|^rx_out_of_buffer$")


# the same command as a detection signature (a paste of ``ethtool -S ens1f0 | grep pause``
# has no "NIC statistics:" header): the command, then a counter line
_COMMAND_THEN_COUNTER = re.compile(r"^(?:.*?[$#]\s*)?(?:sudo\s+)?(?:\S*/)?ethtool\s+(?:-S|--statistics)\s+[\w.:@-]+.*\n\s+[A-Za-z]\w*: \d+\s*$", re.M)
# a grep of an sosreport's ethtool -S file, then a counter line
_SOS_GREP_THEN_COUNTER = re.compile(r"^(?:.*?[$#]\s*)?(?:sudo\s+)?e?grep\s[^|\n]{0,200}?\bethtool_-S_[\w.:@-]+\s*\n\s+[A-Za-z]\w*: \d+\s*$", re.M)


def detect(head: str) -> bool:
    return ("NIC statistics:" in head and bool(_HEAD.search(head))) or (
        "ethtool" in head and bool(_COMMAND_THEN_COUNTER.search(head) or _SOS_GREP_THEN_COUNTER.search(head)))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    named = _SOS_FILE.search(artefact.path)
    iface = named["iface"] if named else "unknown"
    received: dict[str, tuple[int, str]] = {}  # interface -> the line and value of its rx_packets
    starved: set[str] = set()  # interfaces with rx_out_of_buffer above zero
    for n, line in enumerate(artefact.lines, 1):
        if m := _COMMAND.match(line) or _SOS_GREP.match(line):
            iface = m["iface"]
            result.lines_used += 1
            continue
        if _HEAD.match(line):
            result.lines_used += 1
            continue
        m = _COUNTER.match(line)
        if not m:
            continue
        result.lines_used += 1
        value = int(m["value"])
        if value and m["name"] == "rx_packets":
            received[iface] = (n, m["value"])
        elif value and _PORT_COUNTER.search(m["name"]):
            fb.add(LinkCounter, n, tool="ethtool", device=iface, counter=m["name"], value=float(value), printed=m["value"])
            if m["name"] == "rx_out_of_buffer":
                starved.add(iface)
    # rx_packets only as the base of an interface's rx_out_of_buffer (knowledge/link_quality.yaml per:)
    for name in sorted(starved & received.keys()):
        n, printed = received[name]
        fb.add(LinkCounter, n, tool="ethtool", device=name, counter="rx_packets", value=float(printed), printed=printed)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_HEAD, _COMMAND_THEN_COUNTER, _SOS_GREP_THEN_COUNTER)

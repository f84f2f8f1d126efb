"""``rdma statistic show`` / ``rdma statistic show link <dev>/<port>`` (iproute2's RDMA tool): an
RDMA port's hw counters through RDMA netlink, the set sysfs has under ``ports/<n>/hw_counters``.

Sample content (oracle-japan/ocitutorials howto-get-cnrelated-statistics.md; the wrapped form of
the netdev patch that added per-port optional counters, 2021)::

    link mlx5_2/1 rx_write_requests 18747 rx_read_requests 0 ... local_ack_timeout_err 0 ... np_cnp_sent 0 rx_icrc_encapsulated 0
    link rocep8s0f0/1 rx_write_requests 0 rx_read_requests 0 rx_atomic_requests 0 out_of_buffer 0
    out_of_sequence 0 duplicate_request 0 rnr_nak_retry_err 0 packet_seq_err 0 implied_nak_seq_err 0
        Optional-set: cc_rx_ce_pkts 0

One line per port; a wrapped paste, or ``-p``'s one pair per indented line, continues the port
above it. Facts: one ``rdma_hw_counters`` (source rdma_statistic) per port and reading, evidence
the ``link`` line; the same port again, or a ``date`` line between, is the next reading (growth;
``time_s`` from the ``date``). Per-QP counters (``rdma statistic qp show``: ``cntn``, ``pid``) are
not a port's and are left. Names no field holds are read and left. Empty: nothing read.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ib_facts import RdmaHwCounters, errors_listed, hw_counter_fields, port_id
from stethoscope.facts.parsers.perfquery import DATE_LINE, date_time

KIND = "rdma_statistic"

# link mlx5_2/1 rx_write_requests 18747 rx_read_requests 0 rx_atomic_requests 0 out_of_buffer 0 ...   (ocitutorials)
# link mlx5_0/1                                                                                        (rdma -p stat show)
_LINK = re.compile(r"^link (?P<dev>[A-Za-z][\w.-]*)/(?P<port>\d+)(?P<pairs>(?: +[a-z]\w* +\d+)*) *$")
# out_of_sequence 0 duplicate_request 0 rnr_nak_retry_err 0 packet_seq_err 0 implied_nak_seq_err 0      (netdev patch, wrapped)
#     Optional-set: cc_rx_ce_pkts 0                                                                    (netdev patch)
_MORE = re.compile(r"^\s*(?:Optional-[\w-]+: *)?(?P<pairs>[a-z]\w* +\d+(?: +[a-z]\w* +\d+)*) *$")
_PAIR = re.compile(r"([a-z]\w*) +(\d+)")
_DETECT = re.compile(r"^link [A-Za-z][\w.-]*/\d+ +[a-z]\w* +\d+ +[a-z]\w* +\d+", re.M)

_HW = hw_counter_fields()


def detect(head: str) -> bool:
    return "link " in head and bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    readings: dict[tuple[str, int], int] = {}
    when: float | None = None
    block: dict | None = None

    def flush() -> None:
        if block is None or not block["values"]:
            return
        key = (block["dev"], block["port"])
        n = readings.get(key, 0)
        readings[key] = n + 1
        fb.add(RdmaHwCounters, block["line"], hca=key[0], port=key[1], port_id=port_id(artefact.node, *key), reading=n,
               time_s=block["time"], source="rdma_statistic", errors_listed=errors_listed(block["values"]), **block["values"])

    def add_pairs(text: str) -> None:
        for name, value in _PAIR.findall(text):
            if name in _HW:
                block["values"][name] = int(value)  # type: ignore[index]

    for n, line in enumerate(artefact.lines, 1):
        if DATE_LINE.match(line):
            try:
                when = date_time(line)
            except ValueError:
                fb.error(n, f"rdma statistic: {line.strip()!r} is not a date and time")
                continue
            flush()
            block = None
            result.lines_used += 1
            continue
        m = _LINK.match(line)
        if m:
            flush()
            block = {"dev": m["dev"], "port": int(m["port"]), "line": n, "time": when, "values": {}}
            add_pairs(m["pairs"])
            result.lines_used += 1
            continue
        if block is not None:
            m = _MORE.match(line)
            if m:
                add_pairs(m["pairs"])
                result.lines_used += 1
                continue
            flush()
            block = None
    flush()
    return result


#: the line signatures this reader owns (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)

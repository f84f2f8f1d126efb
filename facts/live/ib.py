"""node_exporter InfiniBand series -> the InfiniBand parsers' facts (``ib_port``,
``ib_port_counters``), so that :mod:`stethoscope.engine.fabric` and the same IB rules judge
live ports exactly as they judge an ``ibstat`` or a saved node_exporter scrape.

Sample series (node_exporter ``collector/infiniband_linux.go``; labels ``device`` = HCA,
``port``; the node is the ``instance`` label's host, node_exporter has no Hostname label)::

    node_infiniband_state_id{device="mlx5_0",instance="node3:9100",job="node",port="1"} 4
    node_infiniband_physical_state_id{device="mlx5_0",instance="node3:9100",job="node",port="1"} 5
    node_infiniband_link_downed_total{device="mlx5_0",instance="node3:9100",job="node",port="1"} 0

``ib_port`` is the state at the end of the window; ``ib_port_counters`` gives two readings per
port (first and last sample of the window), which fabric turns into counter growth.
"""
from __future__ import annotations

from stethoscope.facts.live.dcgm import LiveFacts
from stethoscope.facts.live.prom import Series
from stethoscope.facts.model import Fact
from stethoscope.facts.parsers.ib_facts import PHYS_STATES, STATES, IbPort, IbPortCounters, port_id

#: our signal key -> ib_port_counters field
COUNTERS = {"ib_link_downed": "link_downed", "ib_link_error_recovery": "link_error_recovery",
            "ib_rcv_errors": "rcv_errors"}
ACTIVE = 4
CARRIED_REASON = "it carried traffic earlier in the window (node_infiniband_port_data_received_bytes_total grew)"


def _key(s: Series) -> tuple[str, str, int] | None:
    try:
        return s.node, s.labels["device"], int(s.labels["port"])
    except (KeyError, ValueError):
        return None


def port_facts(fam: dict[str, list[Series]], out: LiveFacts) -> set[str]:
    """Emit ports and counter readings; return the port ids that carried traffic in the window."""
    idx = {k: {_key(s): s for s in fam.get(k, []) if _key(s)} for k in ("ib_phys_state", "ib_rate", "ib_rx_bytes", *COUNTERS)}
    carried: set[str] = set()
    for s in fam.get("ib_state", []):
        k = _key(s)
        if k is None:
            out.skipped += 1
            continue
        node, hca, port = k
        pid = port_id(node, hca, port)
        phys, rate, rx = idx["ib_phys_state"].get(k), idx["ib_rate"].get(k), idx["ib_rx_bytes"].get(k)
        out.add(IbPort, node, s.evidence(), f"{hca}:{port}", hca=hca, port=port, port_id=pid,
                state=STATES.get(int(s.last[1]), str(int(s.last[1]))),
                physical_state=PHYS_STATES.get(int(phys.last[1])) if phys else None,
                rate_gbps=round(rate.last[1] * 8 / 1e9, 3) if rate else None, source="node_exporter")
        if rx and any(b > a for (_, a), (_, b) in zip(rx.samples, rx.samples[1:])):
            carried.add(pid)
        series = {f: idx[key].get(k) for key, f in COUNTERS.items()}
        present = [c for c in series.values() if c is not None]
        if not present:
            continue
        ends = [min(c.samples[0][0] for c in present), max(c.samples[-1][0] for c in present)]
        for reading, at in enumerate(ends):
            values = {f: int(_value_at(c, at)) for f, c in series.items() if c is not None}
            ev = present[0]
            out.add(IbPortCounters, node, ev.evidence(*_sample_at(ev, at)), f"{hca}:{port}", hca=hca, port=port,
                    port_id=pid, reading=reading, time_s=at, source="node_exporter", **values)
    return carried


def _sample_at(s: Series, at: float) -> tuple[float, float]:
    """The sample at ``at``, else the nearest before it, else the first."""
    best = s.samples[0]
    for ts, v in s.samples:
        if ts <= at:
            best = (ts, v)
    return best


def _value_at(s: Series, at: float) -> float:
    return _sample_at(s, at)[1]


def expect_carrying_ports(summaries: list[Fact], carried: set[str]) -> list[Fact]:
    """A port that carried traffic in the window is expected up: the live reason, beside
    fabric's (NCCL uses it, the inventory lists it)."""
    out: list[Fact] = []
    for f in summaries:
        if f.kind == "ib_port_summary" and not f.expected_up_reason and f.port_id in carried:
            f = f.model_copy(update={"expected_up": True, "expected_up_reason": CARRIED_REASON})
        out.append(f)
    return out

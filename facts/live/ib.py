"""node_exporter InfiniBand series -> the InfiniBand parsers' facts (``ib_port``,
``ib_port_counters``), so that :mod:`stethoscope.engine.combine.fabric` and the same IB rules judge
live ports exactly as they judge an ``ibstat`` or a saved node_exporter scrape.

Sample series (node_exporter ``collector/infiniband_linux.go``; labels ``device`` = HCA,
``port``; the node is the ``instance`` label's host, node_exporter has no Hostname label)::

    node_infiniband_state_id{device="mlx5_0",instance="node3:9100",job="node",port="1"} 4
    node_infiniband_physical_state_id{device="mlx5_0",instance="node3:9100",job="node",port="1"} 5
    node_infiniband_link_downed_total{device="mlx5_0",instance="node3:9100",job="node",port="1"} 0

``ib_port`` is the state at the end of the window; ``ib_port_counters`` gives two readings per
port (start and end of the window), which fabric turns into counter growth; a port whose state
left Active within the window gives a ``link_state_change`` with the times; a port that received
data in the window an ``ib_port_traffic`` (fabric: it is expected up).
"""
from __future__ import annotations

from stethoscope.facts.live.dcgm import LiveFacts
from stethoscope.facts.live.series import Series
from stethoscope.facts.kinds.live import IbPortTraffic, LinkStateChange
from stethoscope.facts.live.timeseries import growth_of, iso_time
from stethoscope.facts.parsers.ib_facts import PHYS_STATES, STATES, IbPort, IbPortCounters, port_id

#: our signal key -> ib_port_counters field
COUNTERS = {"ib_link_downed": "link_downed", "ib_link_error_recovery": "link_error_recovery",
            "ib_rcv_errors": "rcv_errors"}
ACTIVE = 4


def _key(s: Series) -> tuple[str, str, int] | None:
    try:
        return s.node, s.labels["device"], int(s.labels["port"])
    except (KeyError, ValueError):
        return None


def port_facts(fam: dict[str, list[Series]], out: LiveFacts, window_s: int) -> None:
    """Emit ports, counter readings, state changes and traffic. The two readings per port are
    the counters at the start of the window (the last value less the window's growth) and at
    its end."""
    idx = {k: {_key(s): s for s in fam.get(k, []) if _key(s)} for k in ("ib_phys_state", "ib_rate", "ib_rx_bytes", *COUNTERS)}
    for s in fam.get("ib_state", []):
        k = _key(s)
        if k is None:
            out.skipped += 1
            continue
        node, hca, port = k
        pid = port_id(node, hca, port)
        phys, rate, rx = idx["ib_phys_state"].get(k), idx["ib_rate"].get(k), idx["ib_rx_bytes"].get(k)
        state = STATES.get(int(s.last[1]), str(int(s.last[1])))
        out.add(IbPort, node, s.evidence(), f"{hca}:{port}", hca=hca, port=port, port_id=pid, state=state,
                physical_state=PHYS_STATES.get(int(phys.last[1])) if phys else None,
                rate_gbps=round(rate.last[1] * 8 / 1e9, 3) if rate else None, source="node_exporter")
        if rx and growth_of(rx) > 0:
            out.add(IbPortTraffic, node, rx.stat_evidence("min", "max", "last", "resets"), f"{hca}:{port}", hca=hca, port=port,
                    port_id=pid, rx_bytes=growth_of(rx), window_s=window_s)
        series = {f: idx[key].get(k) for key, f in COUNTERS.items()}
        present = [c for c in series.values() if c is not None]
        downed = series["link_downed"]
        if "down_from" in s.stats:
            out.add(LinkStateChange, node, s.stat_evidence("last", "min", "changes", "down_from", "down_until"),
                    f"{hca}:{port}", link_type="ib_port", hca=hca, port=port, port_id=pid,
                    changes=int(s.stats.get("changes", 0)), down_from=iso_time(s.stats["down_from"]),
                    down_until=iso_time(s.stats["down_until"]), state_now=state, up_now=int(s.last[1]) == ACTIVE,
                    window_s=window_s, counted_by_link_downed=downed is not None and growth_of(downed) > 0)
        if not present:
            continue
        at = s.at if s.at is not None else s.last[0]
        for reading, when in enumerate((at - window_s, at)):
            values = {f: int(c.last[1] - (growth_of(c) if reading == 0 else 0)) for f, c in series.items() if c is not None}
            out.add(IbPortCounters, node, present[0].stat_evidence("min", "max", "last", "resets"), f"{hca}:{port}",
                    hca=hca, port=port, port_id=pid, reading=reading, time_s=when, source="node_exporter", **values)

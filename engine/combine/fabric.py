"""Fabric summary: facts that compare ports with each other and readings with earlier ones.

Rules compare one fact's fields with constants or with an earlier pattern's fields; "below
the node's other ports", "below the fleet's usual rate" and "grew by N an hour between two
readings" need a look at many facts at once. This step runs after parsing and emits derived
facts (``sources`` names the facts they summarise, so findings quote the original lines):

- ``ib_port_summary``: one per HCA port (ibstat wins over ibstatus over node_exporter),
  with whether it is expected up (NCCL uses it, the inventory lists it, it carried traffic,
  ...), its siblings' best rate and widest width, the fleet's usual rate and the
  inventory's expected rate;
- ``ib_port_rate_vs_siblings``, ``ib_port_width_vs_siblings``, ``ib_port_rate_vs_fleet``,
  ``ib_port_rate_vs_inventory``: one per Active port and reference it differs from, with the
  ratio and the limit of ``knowledge/ib_port_comparison.yaml``; whether the port is degraded
  is the rules' (rules/network/ib_*_below_*.yaml);
- ``ib_counter_growth``: one per (port, counter) that grew between two readings, with the
  rate per hour when both readings carry a time and the counter's limit from
  ``knowledge/ib_counters.yaml`` (rules/network/ib_counter_errors_over_ber_limit*.yaml compare
  them; ib_link_flapping reports any growth of a downed-link counter);
- ``ib_counter_total``: one per (port, error counter) above zero where the port was read only
  once: a count since the counters were cleared, with no rate (saturated when a 4-, 8- or
  16-bit PortCounters field stands at its maximum).
"""
from __future__ import annotations

from collections import Counter, defaultdict

from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.kinds.network import (
    IbCounterGrowth,
    IbCounterTotal,
    IbPortRateVsFleet,
    IbPortRateVsInventory,
    IbPortRateVsSiblings,
    IbPortSummary,
    IbPortWidthVsSiblings,
)

_SOURCE_RANK = {"ibstat": 0, "ibstatus": 1, "ibv_devinfo": 2, "node_exporter": 3}  # every IbPort.source
#: why a port that received data in the window (live ``ib_port_traffic``) is expected up
CARRIED_REASON = "it carried traffic earlier in the window (node_infiniband_port_data_received_bytes_total grew)"


def counter_limits() -> list[knowledge.IbCounter]:
    """knowledge/ib_counters.yaml, validated (facts/knowledge/fabric.py)."""
    return knowledge.load("ib_counters.yaml").counters


def port_limits() -> dict[str, knowledge.IbPortLimit]:
    """knowledge/ib_port_comparison.yaml's limit per reference, validated (facts/knowledge/fabric.py)."""
    return knowledge.load("ib_port_comparison.yaml").comparisons


def _derived(cls, basis: Fact, sources: list[Fact], **fields) -> Fact:
    ids = ",".join(dict.fromkeys(f.id for f in sources))
    return cls(id=f"derived:fabric:{cls.model_fields['kind'].default}:{fields.get('port_id')}:{fields.get('counter', '')}",
               node=basis.node, evidence=basis.evidence, sources=ids, **fields)


def summarise(facts: list[Fact]) -> list[Fact]:
    """Derived fabric facts of ``facts`` (empty when there is no InfiniBand evidence)."""
    ports: dict[str, Fact] = {}
    widths: dict[str, str] = {}  # port id -> "4X": ibstat has no width, ibstatus and node_exporter do
    hcas: dict[tuple[str, str], Fact] = {}
    named_by_nccl: dict[tuple[str, str], Fact] = {}
    inventory: dict[str, Fact] = {}
    traffic: dict[str, Fact] = {}  # live: ports that received data in the window
    counters: list[Fact] = []
    for f in of_kind(facts, "ib_port", "ib_hca", "nccl_net_device", "inventory_port", "ib_port_traffic", "ib_port_counters"):
        if f.kind == "ib_port":
            old = ports.get(f.port_id)
            if old is None or _SOURCE_RANK[f.source] < _SOURCE_RANK[old.source]:
                ports[f.port_id] = f
            if f.width:
                widths.setdefault(f.port_id, f.width.upper())
        elif f.kind == "ib_hca":
            hcas[(f.node, f.hca)] = f
        elif f.kind == "nccl_net_device" and f.network == "IB":
            named_by_nccl[(f.node, f.device)] = f
        elif f.kind == "inventory_port":
            inventory[f.port_id] = f
        elif f.kind == "ib_port_traffic":
            traffic[f.port_id] = f
        elif f.kind == "ib_port_counters":
            counters.append(f)
    if not ports and not counters:
        return []
    out: list[Fact] = []
    by_node: dict[str, list[Fact]] = defaultdict(list)
    for p in ports.values():
        by_node[p.node].append(p)
    limits = port_limits()
    fleet = Counter(p.rate_gbps for p in ports.values() if p.state == "Active" and p.rate_gbps and p.link_layer != "Ethernet")
    fleet_mode, fleet_ports = fleet.most_common(1)[0] if fleet else (None, 0)
    fleet_rate = fleet_mode if fleet_ports >= limits["rate_vs_fleet"].min_ports else None
    active_on = Counter(p.node for p in ports.values() if p.state == "Active")
    for p in ports.values():
        srcs: list[Fact] = [p]
        siblings = [s for s in by_node[p.node] if s is not p and s.state == "Active" and s.rate_gbps and s.link_layer == p.link_layer]
        sib_rate = max((s.rate_gbps for s in siblings), default=None)
        lanes = _lanes(widths.get(p.port_id))
        sib_lanes = max((n for s in siblings if (n := _lanes(widths.get(s.port_id)))), default=None)
        reason = None
        nccl = named_by_nccl.get((p.node, f"{p.hca}:{p.port}"))
        inv = inventory.get(p.port_id)
        hca = hcas.get((p.node, p.hca))
        if nccl is not None:
            reason, srcs = "NCCL uses it", srcs + [nccl]
        elif inv is not None:
            reason, srcs = "the inventory lists it as cabled", srcs + [inv]
        elif hca is not None and hca.ports == 1 and siblings and p.physical_state != "Disabled":
            # a Disabled port was switched off (ibportstate disable; on RoCE the netdev set down): an unused
            # function beside cabled ones (a DGX Spark's second ConnectX-7 port, geerlingguy/sbc-reviews#92)
            reason = "single-port HCA beside Active ones"
        elif _joined_fabric(p):
            reason = (f"a subnet manager (SM lid {p.sm_lid}) gave it LID {p.lid}, so it was cabled into the fabric, "
                      "and Polling means the port is enabled and looking for its link partner")
        elif p.port_id in traffic:
            reason, srcs = CARRIED_REASON, srcs + [traffic[p.port_id]]
        active = p.state == "Active"
        expected_rate = inv.expected_rate_gbps if inv is not None else None
        summary = _derived(
            IbPortSummary, p, srcs, hca=p.hca, port=p.port, port_id=p.port_id, state=p.state, physical_state=p.physical_state,
            rate_gbps=p.rate_gbps, link_layer=p.link_layer, lid=p.lid, sm_lid=p.sm_lid, expected_up=reason is not None or active, expected_up_reason=reason,
            sibling_rate_gbps=sib_rate, fleet_rate_gbps=fleet_rate, expected_rate_gbps=expected_rate,
            width=widths.get(p.port_id), width_lanes=lanes, sibling_width_lanes=sib_lanes,
            node_active_ports=active_on[p.node],
        )
        out.append(summary)
        if active and p.rate_gbps:
            out += _comparisons(summary, siblings, widths, limits, fleet_mode, fleet_ports)
    out.extend(_growth(counters, ports))
    return out


def _comparisons(port: Fact, siblings: list[Fact], widths: dict[str, str], limits: dict[str, knowledge.IbPortLimit],
                 fleet_rate: float | None, fleet_ports: int) -> list[Fact]:
    """An Active port against each reference whose value differs from its own (equal: nothing
    to judge, no fact); the ratio beside the knowledge file's limit, for the rules to compare."""
    out: list[Fact] = []

    def add(cls, key: str, value: float, reference: float, extra: list[Fact], **fields) -> None:
        if value != reference:
            out.append(cls(id=f"derived:fabric:{cls.model_fields['kind'].default}:{port.port_id}", node=port.node,
                           evidence=port.evidence, sources=",".join([port.id] + [f.id for f in extra]),
                           hca=port.hca, port=port.port, port_id=port.port_id, rate_gbps=port.rate_gbps,
                           ratio=value / reference, below_ratio=limits[key].below_ratio, **fields))

    rate = port.rate_gbps
    if siblings:
        best = max(siblings, key=lambda s: s.rate_gbps)
        add(IbPortRateVsSiblings, "rate_vs_siblings", rate, best.rate_gbps, [best],
            sibling_rate_gbps=best.rate_gbps, sibling=best.port_id)
        lanes = port.width_lanes
        wide = [(n, s) for s in siblings if (n := _lanes(widths.get(s.port_id)))]
        if lanes and wide:
            n, widest = max(wide, key=lambda w: w[0])
            add(IbPortWidthVsSiblings, "width_vs_siblings", lanes, n, [widest], width=port.width, width_lanes=lanes,
                sibling_width_lanes=n, sibling=widest.port_id)
    if fleet_rate and port.link_layer != "Ethernet":
        add(IbPortRateVsFleet, "rate_vs_fleet", rate, fleet_rate, [], fleet_rate_gbps=fleet_rate, fleet_ports=fleet_ports,
            min_ports=limits["rate_vs_fleet"].min_ports)
    if port.expected_rate_gbps:
        add(IbPortRateVsInventory, "rate_vs_inventory", rate, port.expected_rate_gbps, [],
            expected_rate_gbps=port.expected_rate_gbps)
    return out


def _growth(counters: list[Fact], ports: dict[str, Fact]) -> list[Fact]:
    by_lid = {(p.node, p.lid): p for p in ports.values() if p.lid}
    series: dict[str, list[Fact]] = defaultdict(list)
    names: dict[str, tuple[str | None, int]] = {}
    for c in counters:
        pid = c.port_id
        if pid is None and (c.node, c.lid) in by_lid:
            p = by_lid[(c.node, c.lid)]
            pid, names[p.port_id] = p.port_id, (p.hca, p.port)
        pid = pid or f"{c.node}/lid{c.lid}/{c.port}"
        names.setdefault(pid, (c.hca, c.port))
        series[pid].append(c)
    out: list[Fact] = []
    for pid, readings in series.items():
        if len(readings) < 2:
            out.extend(_totals(pid, names[pid], readings[0]))
            continue
        readings.sort(key=lambda c: (c.time_s or 0, c.reading))
        first, last = readings[0], readings[-1]
        window = (last.time_s - first.time_s) if first.time_s is not None and last.time_s is not None else None
        for spec in counter_limits():
            a, b = getattr(first, spec.field), getattr(last, spec.field)
            if a is None or b is None or b <= a:
                continue  # no growth, or a counter reset (the later reading is lower)
            delta = b - a
            per_hour = delta * 3600 / window if window else None
            hca, port = names[pid]
            out.append(_derived(
                IbCounterGrowth, last, [first, last], hca=hca, port=port, port_id=pid, counter=spec.counter, cause=spec.cause,
                first=a, last=b, delta=delta, window_s=window, per_hour=round(per_hour, 1) if per_hour is not None else None,
                limit_per_hour=float(spec.limit_per_hour),
            ))
    return out


#: LIDs that no subnet manager assigned: 0 (none yet) and 0xffff (the permissive LID)
_UNASSIGNED_LIDS = (0, 0xFFFF)


def _joined_fabric(p: Fact) -> bool:
    """A Down InfiniBand port still holding the LID a subnet manager gave it, and Polling.

    An uncabled spare port polls too, but no SM ever reached it, so its LID is 0 (or the
    permissive 0xffff); a port an operator disabled says ``Disabled``, not ``Polling``. The
    LID stays after the link is lost (leptonai/gpud#482: Down, Polling, Base lid 868, SM lid 334),
    so a port that keeps it was part of the fabric and has lost its link partner."""
    return (p.state == "Down" and p.physical_state == "Polling" and p.link_layer != "Ethernet"
            and p.lid is not None and p.lid not in _UNASSIGNED_LIDS and bool(p.sm_lid) and p.sm_lid not in _UNASSIGNED_LIDS)


def _lanes(width: str | None) -> int | None:
    """``4X`` -> 4, ``1x`` -> 1."""
    if not width or not width[:-1].isdigit():
        return None
    return int(width[:-1])


def _totals(pid: str, name: tuple[str | None, int], reading: Fact) -> list[Fact]:
    out: list[Fact] = []
    for spec in counter_limits():
        value = getattr(reading, spec.field)
        if not value:
            continue
        top = 2 ** int(spec.bits) - 1
        saturated = not reading.extended and value >= top
        what = f"the link went down {value} time(s)" if spec.counter == "LinkDownedCounter" else f"{value} error(s)"
        meaning = (f"the counter stands at its {spec.bits}-bit maximum {top}: at least {value} since the counters were last cleared, maybe far more"
                   if saturated else f"{what} since the counters were last cleared (reboot, driver reload or perfquery -R), at an unknown rate")
        out.append(_derived(
            IbCounterTotal, reading, [reading], hca=name[0], port=name[1], port_id=pid, counter=spec.counter, cause=spec.cause,
            value=value, bits=int(spec.bits), saturated=saturated, meaning=meaning,
        ))
    return out

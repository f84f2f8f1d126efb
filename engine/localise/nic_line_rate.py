"""nccl-tests busbw against the line rate of the node's RDMA ports (issue 11).

A run that crosses nodes is bounded by each node's NICs; ibstat / ibstatus / ibv_devinfo in
the same bundle say how many ports are Active and at what rate. The comparison is a
``busbw_vs_nic_rate`` fact per run; the threshold and its sources are in
knowledge/nic_line_rate.yaml. A run counts as crossing nodes when its rank lines name more
than one host, or the job has more ranks than one 8-GPU node holds (nccl-tests' nranks, else
NCCL's ``comm ... nranks N`` lines); a single-node run is bounded by NVLink or PCIe, never
by the NICs, and is not compared. The ports are the run's node's, else, where the bundle's
port listings come from one node that ran nothing itself (an ibstat pasted without a host),
that node's: the job's nodes are alike.
"""
from __future__ import annotations

from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact
from stethoscope.facts.kinds.nccl import BusbwVsNicRate


def _knowledge() -> knowledge.NicLineRate:
    return knowledge.load("nic_line_rate.yaml")


def _active_ports(ports: list[Fact]) -> dict[str, dict[tuple, Fact]]:
    per: dict[str, dict[tuple, Fact]] = {}
    for p in ports:
        if p.state == "Active" and p.rate_gbps:
            per.setdefault(p.node, {}).setdefault((p.hca, p.port), p)
    return per


def summarise(by_kind: dict[str, list[Fact]]) -> list[Fact]:
    runs = by_kind.get("nccl_test_run", [])
    ports = _active_ports(by_kind.get("ib_port", []))
    if not runs or not ports:
        return []
    k = _knowledge()
    ranks = by_kind.get("nccl_rank", [])
    tables: dict[str, Fact] = {}
    for t in by_kind.get("nccl_test_table", []):
        tables.setdefault(t.run_id, t)
    job_nodes = {f.node for f in runs} | {f.node for f in ranks}
    out: list[Fact] = []
    for run in runs:
        nranks = max([run.nranks or 0] + [r.nranks for r in ranks if r.node == run.node])
        if not (run.hosts > 1 or nranks >= k.multi_node_min_ranks):
            continue
        node_ports = ports.get(run.node)
        ports_node = run.node
        if node_ports is None:
            others = [n for n in ports if n not in job_nodes]
            if len(others) != 1:
                continue
            ports_node = others[0]
            node_ports = ports[ports_node]
        table = tables.get(run.id)
        busbw = table.oop_busbw if table is not None else ()
        mine = [i for i, size in enumerate(table.size_bytes if table is not None else ()) if size >= k.large_size_bytes]
        best = max(mine, key=lambda i: busbw[i] or 0.0, default=None)
        if best is not None and busbw[best]:  # the row cited as its table's part (its row fact may not be kept)
            measured, measure, shown, cited = busbw[best], "peak_large_sizes", table.part_evidence(best), table.source(best)
        elif run.avg_busbw:
            measured, measure, shown, cited = run.avg_busbw, "average", run.evidence, run.id
        else:
            continue
        rate = sum(p.rate_gbps for p in node_ports.values())
        nic = rate / 8.0
        ratio = round(measured / nic, 3)
        sources = [cited] + [p.id for p in sorted(node_ports.values(), key=lambda p: (p.hca, p.port))]
        out.append(BusbwVsNicRate(
            id=f"derived:summary:busbw_vs_nic_rate:{run.id}", node=run.node, evidence=shown, run_id=run.id,
            sources=",".join(dict.fromkeys(sources)), measured_busbw=measured, measure=measure,
            nic_ports=len(node_ports), nic_rate_gbps=rate, nic_busbw=round(nic, 2), ratio=ratio,
            min_ratio=k.min_ratio, ports_node=ports_node, nranks=nranks,
            hosts=run.hosts))
    return out

"""Cross-file NCCL network and build checks (one step of engine/pipeline.py's COMBINERS):

- ``roce_gid_set``: the RoCE GIDs and ``NCCL_IB_GID_INDEX`` values of the job's nodes: how
  many connections paired GIDs of two kinds, how many kinds the nodes used, how many indexes
  were set, how many RDMA connections failed (rules/network/roce_gid_*.yaml judge);
- ``nccl_gdr_distance``: GPUDirect RDMA turned off for a GPU/HCA pair by its PCIe distance,
  with whether the job goes over the network at all;
- ``nccl_arch_build``: the NCCL in use beside the first release with native code for the
  node's GPU architecture (``knowledge/nccl_arch_support.yaml``, the architecture and product
  name read from ``nvidia-smi -q``); rules compare the versions.
"""
from __future__ import annotations

import re
from collections import defaultdict

from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact
from stethoscope.engine.catalogues.gpu_products import name_words
from stethoscope.facts.kinds.nccl import NcclArchBuild, NcclGdrDistance, RoceGidSet


def _make(cls, shown: Fact, sources: list[Fact], key: str, node: str | None = None, **fields) -> Fact:
    ids = ",".join(dict.fromkeys(f.id for f in sources))
    return cls(id=f"derived:summary:{cls.model_fields['kind'].default}:{key}", node=node or shown.node,
               evidence=shown.evidence, sources=ids, **fields)


def summarise(by_kind: dict[str, list[Fact]]) -> list[Fact]:
    return [*gid_set(by_kind), *gdr_distance(by_kind), *arch_support(by_kind)]


# --- RoCE GIDs ---------------------------------------------------------------------------

def gid_kind(gid: str | None) -> str | None:
    """``::ffff:10.1.1.1`` -> ipv4 (IPv4-mapped), ``fe80::...`` -> ipv6_link_local, another
    IPv6 GID -> ipv6; an empty or truncated one (``::ffff:``) -> None."""
    if not gid or gid.rstrip(":") in ("", "::ffff"):
        return None
    low = gid.lower()
    if low.startswith("::ffff:") and "." in low:
        return "ipv4"
    if low.startswith("fe80:"):
        return "ipv6_link_local"
    return "ipv6" if ":" in low else None


def gid_set(by_kind: dict[str, list[Fact]]) -> list[Fact]:
    completions = [c for c in by_kind.get("nccl_rdma_completion_error", []) if c.local_gid or c.remote_gid]
    modify_qp = [v for v in by_kind.get("nccl_verbs_failure", []) if v.verb == "ibv_modify_qp"]
    errors = len(by_kind.get("nccl_rdma_completion_error", [])) + len(modify_qp)
    index: dict[str, Fact] = {}
    for e in by_kind.get("nccl_env", []):
        if e.name == "NCCL_IB_GID_INDEX":
            index.setdefault(e.node, e)
    if not completions and len(index) < 2:
        return []
    # the kind of GID each node used: its own side of its completion errors
    used: dict[str, tuple[str, str, Fact]] = {}
    pair_mixed: list[Fact] = []
    for c in completions:
        lk, rk = gid_kind(c.local_gid), gid_kind(c.remote_gid)
        if lk:
            used.setdefault(c.node, (lk, c.local_gid, c))
        if lk and rk and lk != rk:
            pair_mixed.append(c)
    # what the rules weigh, in the order they read it: a connection between GIDs of two kinds,
    # the kinds each node used, the first failed connection, each node's NCCL_IB_GID_INDEX
    errs = completions or modify_qp or by_kind.get("nccl_rdma_completion_error", [])
    shown = list({id(f): f for f in [*pair_mixed[:1], *(f for _, _, f in used.values()), *errs[:1], *index.values()]}.values())
    skip = pair_mixed[0].node if pair_mixed else None  # its GID is named in the pair below
    kinds_text = "; ".join(f"{n} {k} ({g})" for n, (k, g, _) in sorted(used.items()) if n != skip)
    if pair_mixed:
        c = pair_mixed[0]
        kinds_text = (f"{c.node} local {gid_kind(c.local_gid)} ({c.local_gid}) vs remote {gid_kind(c.remote_gid)} "
                      f"({c.remote_gid})" + (f"; {kinds_text}" if kinds_text else ""))
    return [_make(RoceGidSet, shown[0], shown, "job", node="job", mixed_pairs=len(pair_mixed),
                  node_gid_kinds=len({k for k, _, _ in used.values()}), gid_kinds=kinds_text or "unknown",
                  gid_index="; ".join(f"{n}: {e.value}" for n, e in sorted(index.items())) or "not set",
                  distinct_index=len({e.value for e in index.values()}), connection_errors=errors)]


# --- GPUDirect RDMA off by PCIe distance ---------------------------------------------------

# NCCL's path types by distance (src/graph/topo.h): PXN came in 2.12, C2C in 2.26, P2C in 2.27.
_PATHS = [((2, 27), ["LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS"]),
          ((2, 26), ["LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "PHB", "SYS", "NET", "DIS"]),
          ((2, 12), ["LOC", "NVL", "NVB", "PIX", "PXB", "PXN", "PHB", "SYS", "DIS"]),
          ((0, 0), ["LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS"])]


def _vt(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def path_name(distance: int, version: str | None) -> str:
    if version is None:
        return "unknown"
    names = next(n for since, n in _PATHS if _vt(version)[:2] >= since)
    return names[distance] if 0 <= distance < len(names) else "unknown"


def gdr_distance(by_kind: dict[str, list[Fact]]) -> list[Fact]:
    pairs = [g for g in by_kind.get("nccl_gdr_state", []) if g.scope == "gpu_hca_pair" and not g.enabled]
    if not pairs:
        return []
    versions = {v.node: v.version for v in by_kind.get("nccl_version", [])}
    net = [t for t in by_kind.get("nccl_transport", []) if t.family == "NET"]
    net_nodes = {t.node for t in net}
    rank_nodes = {r.node for r in by_kind.get("nccl_rank", [])}
    out: list[Fact] = []
    seen: set[tuple] = set()
    for g in pairs:
        gpu = g.gpu_bus_id or (str(g.gpu) if g.gpu is not None else "?")
        key = (g.node, gpu, g.hca)
        if key in seen:
            continue
        seen.add(key)
        multi = g.node in net_nodes or len(rank_nodes) > 1
        why = [next(t for t in net if t.node == g.node)] if g.node in net_nodes else []
        printed = re.search(r"for GPU (\S+) /", g.evidence.text)
        text = printed[1] if printed else gpu
        out.append(_make(NcclGdrDistance, g, [g, *why], f"{g.node}:{gpu}:{g.hca}", gpu=text, gpu_bus_id=g.gpu_bus_id,
                         hca=g.hca, distance=g.distance, limit=g.limit, path=path_name(g.distance, versions.get(g.node)),
                         multi_node=multi))
    return out


# --- NCCL build vs GPU architecture --------------------------------------------------------

def arch_table() -> list[knowledge.NcclArchSupport]:
    """knowledge/nccl_arch_support.yaml, validated (facts/knowledge/nccl.py)."""
    return knowledge.load("nccl_arch_support.yaml").support


def arch_entry(architecture: str, name: str | None) -> knowledge.NcclArchSupport | None:
    words = set(name_words(name))
    for e in arch_table():
        if e.architecture.lower() != architecture.strip().lower():
            continue
        if e.product_words and not words & {w.lower() for w in e.product_words}:
            continue
        return e
    return None


def arch_support(by_kind: dict[str, list[Fact]]) -> list[Fact]:
    """One ``nccl_arch_build`` for each NCCL version line (and build CUDA) a node printed whose
    GPU architecture the table lists; no verdict here."""
    gpus: dict[str, Fact] = {}
    for g in by_kind.get("gpu_info", []):
        if g.product_architecture:
            gpus.setdefault(g.node, g)
    out: list[Fact] = []
    done: set[tuple[str, str, str | None]] = set()
    for v in by_kind.get("nccl_version", []):
        g = gpus.get(v.node)
        if g is None or (v.node, v.version, v.cuda) in done:
            continue
        entry = arch_entry(g.product_architecture, g.name)
        if entry is None:
            continue
        done.add((v.node, v.version, v.cuda))
        out.append(_make(NcclArchBuild, v, [v, g], f"{v.node}:{v.version}:{v.cuda}", version=v.version, build_cuda=v.cuda,
                         architecture=g.product_architecture, gpu_name=g.name,
                         compute_capability=entry.compute_capability, nccl_min=entry.nccl_min,
                         cuda_min=entry.cuda_min, source=entry.source))
    return out

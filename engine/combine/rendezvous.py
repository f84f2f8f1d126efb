"""torchrun rendezvous across the bundle: which nodes took part in a rendezvous that timed out.

One step of engine/pipeline.py's COMBINERS. RendezvousTimeoutError carries no
message (torch/distributed/elastic/rendezvous/dynamic_rendezvous.py raises it bare): the nodes
that never joined are read from the bundle instead. A node took part when one of its files shows
the agent's rendezvous (``torch_rendezvous_join``) or its failure (``torch_rendezvous_error``); a
node of the bundle with neither never joined, and fewer participants than the launch config's
``min_nodes`` means that many more never did, named or not.
"""
from __future__ import annotations

from stethoscope.facts.model import Fact
from stethoscope.facts.parsers.torch_elastic import TorchRendezvousIncomplete

#: node names that stand for no host (summary facts, files no node claims)
_NOT_A_HOST = {"job", "unknown", None}


def _short(name: str) -> str:
    """``node1.cluster.local`` -> ``node1``: a node descriptor may name the FQDN, a folder the host."""
    return name.split(".", 1)[0].lower()


def summarise(by_kind: dict[str, list[Fact]], facts: list[Fact]) -> list[Fact]:
    timeouts = [f for f in by_kind.get("torch_rendezvous_error", []) if f.error == "timeout"]
    if not timeouts:
        return []
    taking_part = by_kind.get("torch_rendezvous_join", []) + by_kind.get("torch_rendezvous_error", [])
    joined = sorted({f.node for f in taking_part if f.node not in _NOT_A_HOST})
    joined_short = {_short(n) for n in joined}
    bundle = sorted({f.node for f in facts if f.node not in _NOT_A_HOST and not f.id.startswith("derived:")})
    missing = [n for n in bundle if _short(n) not in joined_short]
    min_nodes = max((f.min_nodes for f in timeouts if f.min_nodes), default=None)
    count = max(len(missing), (min_nodes - len(joined)) if min_nodes else 0)
    if count <= 0:
        return []
    shown = min(timeouts, key=lambda f: (f.evidence.path, f.evidence.line))
    sources = ",".join(dict.fromkeys(f.id for f in [*timeouts, *taking_part]))
    return [TorchRendezvousIncomplete(
        id="derived:summary:torch_rendezvous_incomplete:job", node=missing[0] if missing else "job",
        evidence=shown.evidence, sources=sources, joined=", ".join(joined) or "none", joined_count=len(joined),
        min_nodes=min_nodes, missing=", ".join(missing) if missing else "not in the bundle", missing_count=count)]

"""What a GPU's product name says about its board (knowledge/gpu_products.yaml): one
``gpu_product`` fact, ``nvswitch_board: false``, for each GPU whose name has a word of a
product that never sits on an NVSwitch baseboard (GeForce, RTX, a PCIe or NVL card). Rules
read it to tell a fabric manager that had nothing to manage from one that failed. Called from
:func:`stethoscope.engine.catalogues.xid.knowledge_facts` before the rules run."""
from __future__ import annotations

import re

from stethoscope.facts import knowledge
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.parsers.xid_knowledge_facts import GpuProduct

_WORDS = re.compile(r"[\s\-_/]+")


def name_words(name: str | None) -> list[str]:
    """A product name's words as knowledge tables list them, lower-case: ``NVIDIA GeForce
    RTX 5090`` -> nvidia, geforce, rtx, 5090 (also knowledge/nccl_arch_support.yaml's product_words)."""
    return [t.lower() for t in _WORDS.split(name or "") if t]


def product_facts(facts: list[Fact]) -> list[Fact]:
    words = {w.lower(): w for w in knowledge.load("gpu_products.yaml").no_nvswitch_words}
    out: list[Fact] = []
    seen: set[tuple[str, str]] = set()
    for f in of_kind(facts, "gpu_info"):
        name = getattr(f, "name", None)
        if not name or (f.node, f.pci_bus_id) in seen:  # type: ignore[attr-defined]
            continue
        hit = next((words[t] for t in name_words(name) if t in words), None)
        if hit is None:
            continue
        seen.add((f.node, f.pci_bus_id))  # type: ignore[attr-defined]
        out.append(GpuProduct(id=f"knowledge:gpu_product:{f.node}:{f.pci_bus_id}", node=f.node, evidence=f.evidence,
                              pci_bus_id=f.pci_bus_id, name=name, nvswitch_board=False, word=hit))  # type: ignore[attr-defined]
    return out

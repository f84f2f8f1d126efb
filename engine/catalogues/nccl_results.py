"""What each NCCL result code an application reports tells (knowledge/nccl_results.yaml): one
``nccl_result_catalogue_entry`` fact per result the ``torch_nccl_error`` facts name, joined by
rules/nccl/torch_nccl_error_no_detail.yaml. Called from
:func:`stethoscope.engine.catalogues.xid.knowledge_facts` before the rules run."""
from __future__ import annotations

from stethoscope.facts import knowledge
from stethoscope.facts.model import Evidence, Fact
from stethoscope.facts.parsers.xid_knowledge_facts import NcclResultCatalogueEntry

NAME = "nccl_results.yaml"


def entry_facts(facts: list[Fact]) -> list[Fact]:
    table = knowledge.load(NAME)
    given = {f.name for f in facts if f.kind == "nccl_result_catalogue_entry"}  # type: ignore[attr-defined]
    names = sorted({f.nccl_error for f in facts if f.kind == "torch_nccl_error" and f.nccl_error} - given)  # type: ignore[attr-defined]
    out: list[Fact] = []
    for name in names:
        r = table.entry(name)
        if r is None:
            continue
        out.append(NcclResultCatalogueEntry(
            id=f"catalogue:nccl_result:{name}", node="",
            evidence=Evidence(path=f"knowledge/{NAME}", line=knowledge.entry_lines(NAME, "- name: ").get(name.lower(), 1), text=f"{name} ({r.code}) \"{r.text}\": {r.meaning}"),
            name=name, code=r.code, text=r.text, component=r.component, meaning=r.meaning, actions=",".join(r.actions)))
    return out

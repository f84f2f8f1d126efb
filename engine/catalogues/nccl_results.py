"""What each NCCL result code an application reports tells (knowledge/nccl_results.yaml): one
``nccl_result_catalogue_entry`` fact per result the ``torch_nccl_error`` and ``xla_nccl_error`` facts
name, joined by rules/nccl/torch_nccl_error_no_detail.yaml and xla_nccl_error_no_detail.yaml; and
what each self-explaining NCCL WARN message tells
(knowledge/nccl_warn_messages.yaml): one ``nccl_warn_message_entry`` fact per message kind the
``nccl_warn`` facts name, joined by rules/nccl/nccl_warn_message.yaml. Called from
:func:`stethoscope.engine.catalogues.xid.knowledge_facts` before the rules run."""
from __future__ import annotations

from stethoscope.facts import knowledge
from stethoscope.facts.model import Evidence, Fact, of_kind
from stethoscope.facts.parsers.xid_knowledge_facts import NcclResultCatalogueEntry, NcclWarnMessageEntry

NAME = "nccl_results.yaml"
WARNS = "nccl_warn_messages.yaml"


def _entries(table: str, marker: str, keys: list[str], lookup, make) -> list[Fact]:
    """One catalogue fact per key the table has (``lookup``), citing the key's line of
    ``knowledge/<table>`` (``marker`` begins its entries): ``make(key, entry, evidence)``."""
    lines = knowledge.entry_lines(table, marker)
    out: list[Fact] = []
    for key in keys:
        e = lookup(key)
        if e is not None:
            out.append(make(key, e, lines.get(key.lower(), 1)))  # entry_lines lowercases its keys
    return out


def entry_facts(facts: list[Fact]) -> list[Fact]:
    table = knowledge.load(NAME)
    given = {f.name for f in of_kind(facts, "nccl_result_catalogue_entry")}  # type: ignore[attr-defined]
    names = sorted({f.nccl_error for kind in ("torch_nccl_error", "xla_nccl_error")  # type: ignore[attr-defined]
                    for f in of_kind(facts, kind) if f.nccl_error} - given)
    if not names:
        return []
    return _entries(NAME, "- name: ", names, table.entry, lambda name, r, line: NcclResultCatalogueEntry(
        id=f"catalogue:nccl_result:{name}", node="",
        evidence=Evidence(path=f"knowledge/{NAME}", line=line, text=f"{name} ({r.code}) \"{r.text}\": {r.meaning}"),
        name=name, code=r.code, text=r.text, component=r.component, meaning=r.meaning, actions=",".join(r.actions)))


def warn_entry_facts(facts: list[Fact]) -> list[Fact]:
    """One ``nccl_warn_message_entry`` per message kind of the ``nccl_warn`` facts."""
    kinds = sorted({f.message_kind for f in of_kind(facts, "nccl_warn") if f.message_kind})  # type: ignore[attr-defined]
    if not kinds:
        return []
    by_kind = {m.message_kind: m for m in knowledge.load(WARNS).messages}
    return _entries(WARNS, "- message_kind: ", kinds, by_kind.get, lambda k, m, line: NcclWarnMessageEntry(
        id=f"catalogue:nccl_warn:{k}", node="",
        evidence=Evidence(path=f"knowledge/{WARNS}", line=line, text=f"{m.format} ({m.source}): {m.meaning}"),
        message_kind=k, severity=m.severity, cause=m.cause, component=m.component, actions=",".join(m.actions),
        meaning=m.meaning))

"""The meaning of the HCA async events and of the failed work-completion statuses a log names
(knowledge/ib_async_events.yaml, knowledge/ib_wc_status.yaml), as one catalogue-entry fact per
distinct event or status: rules join them on ``event`` / ``status``, as the Xid rules join
the Xid catalogue. Called from :func:`stethoscope.engine.catalogues.xid.knowledge_facts`
before the rules run."""
from __future__ import annotations

from stethoscope.facts import knowledge
from stethoscope.facts.model import Evidence, Fact, of_kind
from stethoscope.facts.parsers.xid_knowledge_facts import IbAsyncEventCatalogueEntry, IbWcStatusCatalogueEntry

EVENTS = "ib_async_events.yaml"
STATUSES = "ib_wc_status.yaml"


def event_facts(facts: list[Fact]) -> list[Fact]:
    table = knowledge.load(EVENTS)
    given = {f.event for f in of_kind(facts, "ib_async_event_catalogue_entry")}  # type: ignore[attr-defined]
    events = sorted({f.event for f in of_kind(facts, "nccl_ib_async_event")} - given)  # type: ignore[attr-defined]
    out: list[Fact] = []
    for event in events:
        e = table.entry(event)
        if e is None:
            continue  # an event libibverbs does not name: the WARN stays unexplained
        out.append(IbAsyncEventCatalogueEntry(
            id=f"catalogue:ib_async_event:{event}", node="",
            evidence=Evidence(path=f"knowledge/{EVENTS}", line=knowledge.entry_lines(EVENTS, "- event: ").get(e.event.lower(), 1),
                              text=f"{e.ibv} \"{e.event}\": {e.meaning}"),
            event=event, ibv=e.ibv, meaning=e.meaning, severity=e.severity, cause=e.cause, component=e.component,
            actions=",".join(e.actions), specific_rule=e.specific_rule))
    return out


def status_facts(facts: list[Fact]) -> list[Fact]:
    table = knowledge.load(STATUSES)
    given = {f.status for f in of_kind(facts, "ib_wc_status_catalogue_entry")}  # type: ignore[attr-defined]
    # NCCL's completion WARNs, the kernel's own (mlx5 "WC error: %d"), UCX's (mlx5 syndrome as ibv_wc_status), Mooncake's and
    # other programs' own lines (verbs_completion_error):
    # one numbering, ib_wc_status's
    seen = {f.error for f in of_kind(facts, "nccl_rdma_completion_error")}  # type: ignore[attr-defined]
    seen |= {f.status for f in of_kind(facts, "kernel_ib_completion_error", "ucx_completion_error",  # type: ignore[attr-defined]
                                       "mooncake_slice_failed", "verbs_completion_error")}
    codes = sorted(seen - given)
    out: list[Fact] = []
    for code in codes:
        s = table.entry(code)
        if s is None:
            continue  # a status libibverbs does not name: the WARN stays unexplained
        out.append(IbWcStatusCatalogueEntry(
            id=f"catalogue:ib_wc_status:{code}", node="",
            evidence=Evidence(path=f"knowledge/{STATUSES}", line=knowledge.entry_lines(STATUSES, "{status: ").get(str(code), 1),
                              text=f"{s.ibv} ({code}) \"{s.name}\": {s.meaning}"),
            status=code, ibv=s.ibv, name=s.name, meaning=s.meaning, severity=s.severity, cause=s.cause,
            component=s.component, actions=",".join(s.actions), specific_rule=s.specific_rule))
    return out


def entry_facts(facts: list[Fact]) -> list[Fact]:
    return event_facts(facts) + status_facts(facts)

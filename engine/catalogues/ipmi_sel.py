"""The meaning of the BMC event log's faults (knowledge/ipmi_sel_events.yaml), as one
catalogue-entry fact per kind of event a log names: rules/host/ipmi_sel_event_catalogue.yaml
joins them on ``event``. Records of normal operation have no entry fact: nothing to report."""
from __future__ import annotations

from stethoscope.facts import knowledge
from stethoscope.facts.model import Evidence, Fact, of_kind
from stethoscope.facts.parsers.ipmitool_sel import TABLE, IpmiSelCatalogueEntry


def entry_facts(facts: list[Fact]) -> list[Fact]:
    seen = {f.event for f in of_kind(facts, "ipmi_sel_event")}  # type: ignore[attr-defined]
    seen -= {f.event for f in of_kind(facts, "ipmi_sel_catalogue_entry")}  # type: ignore[attr-defined]
    seen.discard(None)
    if not seen:
        return []
    table = knowledge.load(TABLE)
    lines = knowledge.entry_lines(TABLE, "event: ")
    out: list[Fact] = []
    for e in table.events:
        if e.event not in seen or e.cause is None or e.component is None:
            continue
        out.append(IpmiSelCatalogueEntry(
            id=f"catalogue:ipmi_sel:{e.event}", node="",
            evidence=Evidence(path=f"knowledge/{TABLE}", line=lines.get(e.event, 1), text=f"{e.sensor_type}: {e.meaning}"),
            event=e.event, sensor_type=e.sensor_type, meaning=e.meaning, severity=e.severity, cause=e.cause,
            component=e.component, actions=",".join(e.actions)))
    return out

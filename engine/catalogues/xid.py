"""The Xid catalogue as facts: ``knowledge/xid.yaml`` read once, validated by pydantic, and
turned into the facts that rules join with (``xid_catalogue_entry``, ``sxid_catalogue_entry``,
``recovery_action_entry``), plus the whole-log aggregations of :mod:`xid_aggregate`.

:func:`knowledge_facts` is called by the diagnosis before the rules run. It adds only the
entries of codes the facts mention: the rules join on the code, so the other 160-odd
entries could never match, and every fact asserted costs time in the durable session.
"""
from __future__ import annotations

from functools import lru_cache

from stethoscope.engine.combine import bundle_series
from stethoscope.engine.catalogues import cuda as cuda_knowledge
from stethoscope.engine.catalogues import gpu_products as gpu_product_knowledge
from stethoscope.engine.catalogues import ib as ib_knowledge
from stethoscope.engine.catalogues import ipmi_sel as ipmi_sel_knowledge
from stethoscope.engine.catalogues import nccl_results as nccl_result_knowledge
from stethoscope.engine.combine import xid_aggregate
from stethoscope.facts import knowledge
from stethoscope.facts.knowledge import (  # noqa: F401 - the catalogue's models, re-exported
    Nvlink5Row,
    NvrmMessage,
    NvrmMessages,
    RecoveryAction,
    Severity,
    SxidEntry,
    XidCatalogue,
    XidEntry,
)
from stethoscope.facts.model import Evidence, Fact, FactIndex, of_kind
from stethoscope.facts.parsers.xid_knowledge_facts import (
    NvrmMessageEntry,
    RecoveryActionEntry,
    SxidCatalogueEntry,
    XidCatalogueEntry,
)

PATH = "knowledge/xid.yaml"
NVRM_PATH = "knowledge/xid_nvrm_messages.yaml"
Catalogue = XidCatalogue


@lru_cache(maxsize=1)
def load_nvrm_messages() -> tuple[NvrmMessages, dict[tuple[str, str], int]]:
    """The NVRM message table and the line of each entry (for evidence)."""
    text = knowledge.text("xid_nvrm_messages.yaml")
    lines = [i for i, line in enumerate(text.splitlines(), 1) if line.startswith("  - message_kind: ")]
    table: NvrmMessages = knowledge.load("xid_nvrm_messages.yaml")
    return table, {(m.message_kind, m.status): ln for m, ln in zip(table.messages, lines)}


def nvrm_entry_facts(facts: list[Fact]) -> list[Fact]:
    """The entries the ``nvrm_error`` facts need: their own (kind, status), else (kind, "")."""
    table, lines = load_nvrm_messages()
    by_key = {(m.message_kind, m.status): m for m in table.messages}
    out: dict[tuple[str, str], Fact] = {}
    for f in of_kind(facts, "nvrm_error"):
        key = (f.message_kind, f.status)  # type: ignore[attr-defined]
        m = by_key.get(key)
        if m is None:
            m = by_key.get((key[0], ""))
        if m is None or key in out:
            continue  # message_kind "other": no entry, left unexplained on purpose
        out[key] = NvrmMessageEntry(
            id=f"catalogue:nvrm:{key[0]}:{key[1]}", node="",
            evidence=Evidence(path=NVRM_PATH, line=lines[(m.message_kind, m.status)], text=f"{m.message_kind} {m.status}: {m.meaning}".strip()),
            message_kind=key[0], status=key[1], severity=m.severity, cause=m.cause, component=m.component,
            actions=",".join(m.actions), meaning=m.meaning,
        )
    return list(out.values())


def _text() -> str:
    return knowledge.text("xid.yaml")


def load_catalogue() -> XidCatalogue:
    """knowledge/xid.yaml, validated (facts/knowledge/xid.py) and cached."""
    return knowledge.load("xid.yaml")


@lru_cache(maxsize=1)
def _lines() -> dict[str, int]:
    """Line of each ``- xid: N`` / ``- sxid: N`` item and recovery action key, for evidence."""
    out: dict[str, int] = {}
    for i, line in enumerate(_text().splitlines(), 1):
        s = line.strip()
        if s.startswith(("- xid: ", "- sxid: ")):
            out.setdefault(s[2:], i)
        elif line.startswith("  ") and not line.startswith("   ") and s.endswith(":"):
            out.setdefault("action:" + s[:-1].strip("'\""), i)
    return out


def _ev(key: str, text: str) -> Evidence:
    return Evidence(path=PATH, line=_lines().get(key, 1), text=text)


def nvidia_advice(immediate: str, investigatory: str) -> str:
    """An Xid entry's ``advice``: NVIDIA's two resolution buckets in words, or that it publishes none."""
    if immediate and investigatory:
        return f"NVIDIA's catalogue says {immediate}, then {investigatory}"
    if immediate or investigatory:
        return f"NVIDIA's catalogue says {immediate or investigatory}"
    return "NVIDIA's catalogue publishes no action for it"


def xid_entry_fact(e: XidEntry) -> XidCatalogueEntry:
    return XidCatalogueEntry(
        id=f"catalogue:xid:{e.xid}", node="",
        evidence=_ev(f"xid: {e.xid}", f"Xid {e.xid} {e.mnemonic}: {e.description} (NVIDIA: {e.immediate or '-'} / {e.investigatory or '-'})"),
        xid=e.xid, mnemonic=e.mnemonic, description=e.description, unused=e.unused, immediate=e.immediate,
        investigatory=e.investigatory, severity=e.severity, cause=e.cause, component=e.component,
        actions=",".join(e.actions), specific_rule=bool(e.specific_rules), escalate_on_recurrence=e.escalate_on_recurrence,
        advice=nvidia_advice(e.immediate, e.investigatory),
    )


def unknown_xid_fact(code: int) -> XidCatalogueEntry:
    """A code beyond the catalogue (a newer driver): the catalogue's ``unlisted.xid``."""
    u = load_catalogue().unlisted.xid
    return XidCatalogueEntry(
        id=f"catalogue:xid:{code}", node="", evidence=_ev("", f"Xid {code}: not in the catalogue ({PATH})"),
        xid=code, mnemonic=u.mnemonic, description=u.description, unused=False,
        immediate="", investigatory="", severity=u.severity, cause=u.cause, component=u.component,
        actions=",".join(u.actions), specific_rule=False, escalate_on_recurrence=False,
        advice="NVIDIA's catalogue does not list it (a newer driver's code)",
    )


def sxid_entry_fact(code: int, fatal_seen: bool) -> SxidCatalogueEntry:
    cat = load_catalogue()
    e = cat.sxid(code)
    if e is None:  # not in the guide: the line's own Fatal/Non-fatal word picks ``unlisted.sxid_*``
        u = cat.unlisted.sxid_fatal if fatal_seen else cat.unlisted.sxid_non_fatal
        return SxidCatalogueEntry(id=f"catalogue:sxid:{code}", node="", evidence=_ev("", f"SXid {code}: not in the catalogue ({PATH})"),
                                  sxid=code, name=u.name, fatality=u.fatality, severity=u.severity,
                                  cause=u.cause, component=u.component, actions=",".join(u.actions))
    return SxidCatalogueEntry(
        id=f"catalogue:sxid:{code}", node="", evidence=_ev(f"sxid: {code}", f"SXid {code} {e.name} ({e.fatality.replace('_', ' ')}): {e.recovery or e.description}"[:400]),
        sxid=code, name=e.name, fatality=e.fatality, severity=e.severity, cause=e.cause, component=e.component,
        actions=",".join(e.actions),
    )


def recovery_entry_fact(action: str) -> RecoveryActionEntry:
    cat = load_catalogue()
    known = cat.recovery_actions.get(action)
    if known is None:  # an action name the catalogue does not list: treat it as Xid 154's default
        e = cat.xid(154)
        assert e is not None
        known = RecoveryAction(severity=e.severity, cause=e.cause, actions=e.actions, component=e.component)
    return RecoveryActionEntry(
        id=f"catalogue:recovery:{action}", node="",
        evidence=_ev(f"action:{action}", f"Xid 154 recovery action '{action}': {', '.join(known.actions)}"),
        action=action, severity=known.severity, cause=known.cause, actions=",".join(known.actions),
        known=action in cat.recovery_actions, component=known.component,
    )


def knowledge_facts(facts: list[Fact]) -> list[Fact]:
    """The catalogue entries and aggregations the rules need for ``facts`` (new facts only)."""
    cat = load_catalogue()
    if getattr(facts, "positions", None) is None:  # (combine's, passed on by diagnose: no pass)
        facts = FactIndex(facts)  # the joins below read a few kinds each (FactIndex)
    out: list[Fact] = []
    # entries the caller already gave (a rule test, a second call) are kept, not doubled
    given = {f.xid for f in of_kind(facts, "xid_catalogue_entry")}  # type: ignore[attr-defined]
    codes = sorted(({f.xid for f in of_kind(facts, "xid_event")}  # type: ignore[attr-defined]
                    | {f.previous_xid for f in of_kind(facts, "xid_event") if f.previous_xid is not None}  # type: ignore[attr-defined]
                    # the Xid the k8s device plugin took a GPU out of service for (rules/gpu/device_plugin_xid.yaml)
                    | {f.xid for f in of_kind(facts, "device_plugin_unhealthy") if f.xid is not None}  # type: ignore[attr-defined]
                    # the Xid GPUd 0.1-0.4 reported without the GPU (rules/gpu/gpud_xid_reported.yaml)
                    | {f.xid for f in of_kind(facts, "gpud_xid_reported")}  # type: ignore[attr-defined]
                    # an Xid quoted without its kernel line (rules/gpu/xid_quoted.yaml)
                    | {f.xid for f in of_kind(facts, "xid_quoted")}  # type: ignore[attr-defined]
                    # the Xid an NVSentinel Xid check reported (rules/gpu/nvsentinel_xid_event.yaml)
                    | {f.xid for f in of_kind(facts, "nvsentinel_health_event") if f.xid is not None}  # type: ignore[attr-defined]
                    # an Xid a person names in a ticket's sentence (rules/gpu/xid_reported_in_prose.yaml)
                    | {f.code for f in of_kind(facts, "reported_fault_code") if f.code_kind == "xid"})  # type: ignore[attr-defined]
                   - given)
    for code in codes:
        e = cat.xid(code)
        out.append(xid_entry_fact(e) if e is not None else unknown_xid_fact(code))
    sx: dict[int, bool] = {}
    for f in of_kind(facts, "nvswitch_sxid"):
            sx[f.sxid] = sx.get(f.sxid, False) or bool(f.fatal)  # type: ignore[attr-defined]
    for f in of_kind(facts, "reported_fault_code"):  # an SXid named in a sentence (rules/nvlink/sxid_reported_in_prose.yaml)
        if f.code_kind == "sxid":  # type: ignore[attr-defined]
            sx.setdefault(f.code, False)  # type: ignore[attr-defined]
    out += [sxid_entry_fact(code, fatal) for code, fatal in sorted(sx.items())]
    out += xid_aggregate.sxid_links(facts)  # every link each NVSwitch names per SXid code
    actions = sorted({f.action for f in of_kind(facts, "gpu_recovery_action")}  # type: ignore[attr-defined]
                     | {f.recovery_action for f in of_kind(facts, "gpu_info") if f.recovery_action})  # type: ignore[attr-defined]
    out += [recovery_entry_fact(a) for a in actions]
    out += nvrm_entry_facts(facts)
    out += xid_aggregate.aggregate(facts, cat)
    out += bundle_series.summarise(facts)  # ECC growth between readings, utilisation stalls
    out += cuda_knowledge.entry_facts(facts)  # the meaning of each CUDA error named (knowledge/cuda_errors.yaml)
    out += ib_knowledge.entry_facts(facts)  # HCA async events and completion statuses (knowledge/ib_*.yaml)
    out += ipmi_sel_knowledge.entry_facts(facts)  # the BMC event log's faults (knowledge/ipmi_sel_events.yaml)
    out += nccl_result_knowledge.entry_facts(facts)  # what each ncclResult_t tells (knowledge/nccl_results.yaml)
    out += nccl_result_knowledge.warn_entry_facts(facts)  # self-explaining NCCL WARNs (knowledge/nccl_warn_messages.yaml)
    out += gpu_product_knowledge.product_facts(facts)  # GPUs that never sit on an NVSwitch board (knowledge/gpu_products.yaml)
    # a fact given already (a rule test, a second call) has the id and kind of the one made here
    ids = {f.id for f in of_kind(facts, *{f.kind for f in out})}
    return [f for f in out if f.id not in ids]

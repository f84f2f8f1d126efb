"""The Xid catalogue as facts: ``knowledge/xid.yaml`` read once, validated by pydantic, and
turned into the facts that rules join with (``xid_catalogue_entry``, ``sxid_catalogue_entry``,
``recovery_action_entry``), plus the whole-log aggregations of :mod:`xid_aggregate`.

:func:`knowledge_facts` is called by the diagnosis before the rules run. It adds only the
entries of codes the facts mention: the rules join on the code, so the other 160-odd
entries could never match, and every fact asserted costs time in the durable session.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Literal


from stethoscope.engine import yamlio
from pydantic import BaseModel, ConfigDict

from stethoscope.engine import bundle_series, cuda_knowledge, xid_aggregate
from stethoscope.facts.model import Evidence, Fact
from stethoscope.facts.parsers.xid_knowledge_facts import (
    NvrmMessageEntry,
    RecoveryActionEntry,
    SxidCatalogueEntry,
    XidCatalogueEntry,
)

Severity = Literal["info", "warning", "critical", "fatal"]
PATH = "knowledge/xid.yaml"
NVRM_PATH = "knowledge/xid_nvrm_messages.yaml"


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class XidEntry(_M):
    xid: int
    mnemonic: str
    description: str
    unused: bool
    immediate: str
    investigatory: str
    severity: Severity
    cause: str
    component: str
    actions: list[str]
    specific_rules: list[str]
    escalate_on_recurrence: bool
    judgement: str | None = None


class Nvlink5Row(_M):
    xid: int
    unit: str
    intrinfo_v1: str  # NVIDIA's bit pattern of the first register, MSB first, '-' = any
    intrinfo_v2: str
    error_status: str
    immediate: str
    investigatory: str
    nvidia_severity: str
    severity: Severity
    actions: list[str]
    consequence: str


class RecoveryAction(_M):
    severity: Severity
    cause: str
    actions: list[str]


class SxidEntry(_M):
    sxid: int
    name: str
    description: str
    fatality: Literal["always_fatal", "potential_fatal", "non_fatal"]
    impact: str
    recovery: str
    document: str
    severity: Severity
    cause: str
    component: str
    actions: list[str]


class NvrmMessage(_M):
    message_kind: str
    status: str
    severity: Severity
    cause: str
    component: str
    actions: list[str]
    meaning: str


class NvrmMessages(_M):
    source: str
    messages: list[NvrmMessage]


@lru_cache(maxsize=1)
def load_nvrm_messages() -> tuple[NvrmMessages, dict[tuple[str, str], int]]:
    """The NVRM message table and the line of each entry (for evidence)."""
    text = resources.files("stethoscope.knowledge").joinpath("xid_nvrm_messages.yaml").read_text(encoding="utf-8")
    lines = [i for i, line in enumerate(text.splitlines(), 1) if line.startswith("  - message_kind: ")]
    table = NvrmMessages.model_validate(yamlio.safe_load(text))
    return table, {(m.message_kind, m.status): ln for m, ln in zip(table.messages, lines)}


def nvrm_entry_facts(facts: list[Fact]) -> list[Fact]:
    """The entries the ``nvrm_error`` facts need: their own (kind, status), else (kind, "")."""
    table, lines = load_nvrm_messages()
    by_key = {(m.message_kind, m.status): m for m in table.messages}
    out: dict[tuple[str, str], Fact] = {}
    for f in facts:
        if f.kind != "nvrm_error":
            continue
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


class Catalogue(_M):
    source: str
    generator: str
    xids: list[XidEntry]
    nvlink5_decode: list[Nvlink5Row]
    recovery_actions: dict[str, RecoveryAction]
    recovery_actions_source: str
    sxids: list[SxidEntry]
    sxid_source: str

    def xid(self, code: int) -> XidEntry | None:
        return next((e for e in self.xids if e.xid == code), None) if self is not load_catalogue() else _index()[0].get(code)

    def sxid(self, code: int) -> SxidEntry | None:
        return next((e for e in self.sxids if e.sxid == code), None) if self is not load_catalogue() else _index()[1].get(code)


@lru_cache(maxsize=1)
def _text() -> str:
    return resources.files("stethoscope.knowledge").joinpath("xid.yaml").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def load_catalogue() -> Catalogue:
    return Catalogue.model_validate(yamlio.safe_load(_text()))


@lru_cache(maxsize=1)
def _index() -> tuple[dict[int, XidEntry], dict[int, SxidEntry]]:
    cat = load_catalogue()
    return {e.xid: e for e in cat.xids}, {e.sxid: e for e in cat.sxids}


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


def xid_entry_fact(e: XidEntry) -> XidCatalogueEntry:
    return XidCatalogueEntry(
        id=f"catalogue:xid:{e.xid}", node="",
        evidence=_ev(f"xid: {e.xid}", f"Xid {e.xid} {e.mnemonic}: {e.description} (NVIDIA: {e.immediate or '-'} / {e.investigatory or '-'})"),
        xid=e.xid, mnemonic=e.mnemonic, description=e.description, unused=e.unused, immediate=e.immediate,
        investigatory=e.investigatory, severity=e.severity, cause=e.cause, component=e.component,
        actions=",".join(e.actions), specific_rule=bool(e.specific_rules), escalate_on_recurrence=e.escalate_on_recurrence,
    )


def unknown_xid_fact(code: int) -> XidCatalogueEntry:
    """A code beyond the catalogue (a newer driver): NVIDIA's advice for the unknown is support."""
    return XidCatalogueEntry(
        id=f"catalogue:xid:{code}", node="", evidence=_ev("", f"Xid {code}: not in the catalogue ({PATH})"),
        xid=code, mnemonic="UNKNOWN", description="not in NVIDIA's catalogue of this version", unused=False,
        immediate="", investigatory="", severity="warning", cause="xid_unused_code", component="gpu",
        actions="CONTACT_SUPPORT", specific_rule=False, escalate_on_recurrence=False,
    )


def sxid_entry_fact(code: int, fatal_seen: bool) -> SxidCatalogueEntry:
    e = load_catalogue().sxid(code)
    if e is None:  # not in the guide: the line's own Fatal/Non-fatal word is all we have
        sev, acts, fat = ("critical", "DRAIN_NODE,RESTART_BM", "potential_fatal") if fatal_seen else ("warning", "HARDWARE_INSPECTION", "non_fatal")
        return SxidCatalogueEntry(id=f"catalogue:sxid:{code}", node="", evidence=_ev("", f"SXid {code}: not in the catalogue ({PATH})"),
                                  sxid=code, name="not in the Fabric Manager guide", fatality=fat, severity=sev,
                                  cause="nvswitch_error", component="nvlink", actions=acts)
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
        known = RecoveryAction(severity=e.severity, cause=e.cause, actions=e.actions)
    return RecoveryActionEntry(
        id=f"catalogue:recovery:{action}", node="",
        evidence=_ev(f"action:{action}", f"Xid 154 recovery action '{action}': {', '.join(known.actions)}"),
        action=action, severity=known.severity, cause=known.cause, actions=",".join(known.actions),
        known=action in cat.recovery_actions,
    )


def knowledge_facts(facts: list[Fact]) -> list[Fact]:
    """The catalogue entries and aggregations the rules need for ``facts`` (new facts only)."""
    cat = load_catalogue()
    out: list[Fact] = []
    # entries the caller already gave (a rule test, a second call) are kept, not doubled
    given = {f.xid for f in facts if f.kind == "xid_catalogue_entry"}  # type: ignore[attr-defined]
    codes = sorted(({f.xid for f in facts if f.kind == "xid_event"}  # type: ignore[attr-defined]
                    | {f.previous_xid for f in facts if f.kind == "xid_event" and f.previous_xid is not None})  # type: ignore[attr-defined]
                   - given)
    for code in codes:
        e = cat.xid(code)
        out.append(xid_entry_fact(e) if e is not None else unknown_xid_fact(code))
    sx: dict[int, bool] = {}
    for f in facts:
        if f.kind == "nvswitch_sxid":
            sx[f.sxid] = sx.get(f.sxid, False) or bool(f.fatal)  # type: ignore[attr-defined]
    out += [sxid_entry_fact(code, fatal) for code, fatal in sorted(sx.items())]
    actions = sorted({f.action for f in facts if f.kind == "gpu_recovery_action"}  # type: ignore[attr-defined]
                     | {f.recovery_action for f in facts if f.kind == "gpu_info" and f.recovery_action})  # type: ignore[attr-defined]
    out += [recovery_entry_fact(a) for a in actions]
    out += nvrm_entry_facts(facts)
    out += xid_aggregate.aggregate(facts, cat)
    out += bundle_series.summarise(facts)  # ECC growth between readings, utilisation stalls
    out += cuda_knowledge.entry_facts(facts)  # the meaning of each CUDA error named (knowledge/cuda_errors.yaml)
    ids = {f.id for f in facts}
    return [f for f in out if f.id not in ids]

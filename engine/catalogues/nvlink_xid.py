"""NVLink Xid lines decoded with NVIDIA's tables: Xid 74 by WORKFLOW_NVLINK_ERR's register
bits (knowledge/xid74_workflow.yaml), Xid 144-150 by the "XID 144-150 Decode" sheet
(knowledge/xid.yaml ``nvlink5_decode``): unit, intrinfo bit pattern and error status.

The kernel log parser gives the link, unit and registers as printed (``XidEvent.nvlink_*``);
this module says what they mean. Severity and actions come from the tables, with the
repetition NVIDIA's workflow asks about counted over the logs given (same GPU, same link).
"""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Literal

from stethoscope.facts import knowledge
from stethoscope.facts.knowledge import Xid74Group, Xid74Workflow
from stethoscope.facts.model import Fact, of_kind
from stethoscope.facts.parsers.xid_knowledge_facts import NVLINK5_MESSAGE, NvlinkXid74Detail, NvlinkXidDetail

if TYPE_CHECKING:
    from stethoscope.engine.catalogues.xid import Catalogue, Nvlink5Row

Severity = Literal["info", "warning", "critical", "fatal"]
SEV_RANK = {"info": 0, "warning": 1, "critical": 2, "fatal": 3}
NVLINK5_CODES = range(144, 151)
Group = Xid74Group
Workflow = Xid74Workflow


def load_workflow() -> Workflow:
    """knowledge/xid74_workflow.yaml, validated (facts/knowledge/xid.py) and cached."""
    return knowledge.load("xid74_workflow.yaml")


def _bits(value: int) -> list[int]:
    return [b for b in range(32) if value >> b & 1]


def _label(bus: str, link: int | None) -> str:
    return f"{bus} NVLink {link if link is not None else '?'}"


def xid74_details(xids: list[Fact], facts: list[Fact]) -> list[Fact]:
    """One ``nvlink_xid74_detail`` per Xid 74 line."""
    wf = load_workflow()
    lines = [x for x in xids if x.xid == 74]  # type: ignore[attr-defined]
    if not lines:
        return []
    per_link: dict[tuple[str, str, str, int | None], int] = defaultdict(int)
    for x in lines:
        per_link[(x.node, x.evidence.path, x.pci_bus_id, x.nvlink_link)] += 1  # type: ignore[attr-defined]
    others: dict[str, int] = defaultdict(int)  # other Xids and SXids per node: NVIDIA's "solo" test
    for f in of_kind(facts, "xid_event", "nvswitch_sxid"):
        if f.kind == "nvswitch_sxid" or f.xid != 74:  # type: ignore[attr-defined]
            others[f.node] += 1
    out: list[Fact] = []
    for x in lines:
        regs = [int(r, 16) for r in x.nvlink_registers.split(",")] if x.nvlink_registers else []  # type: ignore[attr-defined]
        set_bits: list[str] = []
        found: dict[str, Group | None] = {}
        for reg, value in enumerate(regs):
            for bit in _bits(value):
                set_bits.append(f"reg{reg}:{bit}")
                g = wf.classify(reg, bit) if reg in wf.valid_registers else None
                found.setdefault(g.class_ if g else "unlisted", g)
        if not found:
            found["no_registers"] = None
        # "follow the resolution for those" (sympathetic bits beside others): the others lead
        names = sorted(found, key=lambda c: -wf.classes[c].rank)
        worst = names[0]
        k = wf.classes[worst]
        events = per_link[(x.node, x.evidence.path, x.pci_bus_id, x.nvlink_link)]  # type: ignore[attr-defined]
        solo = others[x.node] == 0 and not any(wf.classes[c].rank > k.rank for c in names)
        sev, acts, repeated = k.severity, k.actions, False
        if k.repeat is not None and events >= k.repeat.events:
            sev, acts, repeated = k.repeat.severity, k.repeat.actions, True
        elif k.solo is not None and solo:
            sev, acts = k.solo.severity, k.solo.actions
        g = found[worst]
        meaning = g.nvidia if g is not None else (
            "Bits other than those NVIDIA's workflow lists: please report a bug." if worst == "unlisted"
            else "No register on the line: reset the GPU; check nvidia-smi nvlink -e and the device at the link's other end.")
        out.append(NvlinkXid74Detail(
            id=f"agg:nvlink74:{x.id}", node=x.node, evidence=x.evidence, pci_bus_id=x.pci_bus_id,  # type: ignore[attr-defined]
            boot=x.boot, link=x.nvlink_link, link_label=_label(x.pci_bus_id, x.nvlink_link),  # type: ignore[attr-defined]
            registers=x.nvlink_registers, set_bits=",".join(set_bits), classes=",".join(names),  # type: ignore[attr-defined]
            worst_class=worst, meaning=meaning, likely_part=k.part, same_link_events=events, repeated=repeated,
            solo=solo, severity=sev, actions=",".join(acts), sources=x.id,
        ))
    return out


def _pattern_ok(pattern: str, value: int) -> bool:
    """NVIDIA's intrinfo pattern: 32 characters, most significant bit first, '-' = any."""
    if len(pattern) != 32:
        return False
    for i, ch in enumerate(pattern):
        bit = value >> (31 - i) & 1
        if (ch == "1" and not bit) or (ch == "0" and bit):
            return False
    return True


def _unit_ok(row_unit: str, unit: str) -> bool:
    # the line prints one name of the unit: "NETIR_LINK_EVT" for "NETIR_LINK_EVT/NETIR_LINK_DOWN"
    return unit == row_unit or unit in row_unit.split("/")


def decode_nvlink5(cat: "Catalogue", code: int, unit: str | None, intrinfo: int | None,
                   status: int | None) -> tuple[list["Nvlink5Row"], str]:
    """The decode-table rows of one NVLink5 line and how they were found.

    First the unit, error status and intrinfo bit pattern (V1 or V2 layout) together; else
    unit and status alone (a line printed without the intrinfo, or a pattern the table lacks);
    else, for a status with several bits set, the rows of each bit (the table lists bits)."""
    rows = [r for r in cat.nvlink5_decode if r.xid == code and (unit is None or _unit_ok(r.unit, unit))]
    if status is None:
        return [], "none"
    same = [r for r in rows if int(r.error_status, 16) == status]
    if intrinfo is not None:
        hit = [r for r in same if _pattern_ok(r.intrinfo_v2, intrinfo) or _pattern_ok(r.intrinfo_v1, intrinfo)]
        if hit:
            return hit[:1], "intrinfo pattern"
    if same and len({(r.severity, tuple(r.actions)) for r in same}) == 1:
        return same[:1], "unit and status"
    if not same and status and unit is not None:
        parts = [next((r for r in rows if int(r.error_status, 16) == 1 << b), None) for b in _bits(status)]
        if parts and all(p is not None for p in parts):
            return parts, "status bits"  # type: ignore[return-value]
    return [], "none"


def nvlink5_details(xids: list[Fact], cat: "Catalogue") -> list[Fact]:
    """Unit, severity, link and error status of Xid 144-150 lines, looked up in NVIDIA's table."""
    out: list[Fact] = []
    for x in xids:
        code = x.xid  # type: ignore[attr-defined]
        if code not in NVLINK5_CODES:
            continue
        unit, fatal, link = x.nvlink_unit, x.nvlink_fatal, x.nvlink_link  # type: ignore[attr-defined]
        regs = [int(r, 16) for r in x.nvlink_registers.split(",")] if x.nvlink_registers else []  # type: ignore[attr-defined]
        if unit is None and (m := NVLINK5_MESSAGE.search(x.message)):  # type: ignore[attr-defined]
            # a fact given without the parser's fields (a rule test): read the message
            unit, fatal = m["unit"], m["sev"] == "Fatal"
            link = int(m["link"]) if int(m["link"]) >= 0 else None
            regs = [int(v, 16) for v in (m["intr"], m["status"]) if v]
        intrinfo = regs[0] if regs else None
        status = regs[1] if len(regs) > 1 else None
        rows, how = decode_nvlink5(cat, code, unit, intrinfo, status) if unit else ([], "none")
        if rows:
            worst = max(rows, key=lambda r: SEV_RANK[r.severity])
            sev = worst.severity
            acts = [a for r in rows for a in r.actions]
            acts = [a for i, a in enumerate(acts) if a not in acts[:i]]
            if len(acts) > 1 and "IGNORE" in acts:
                acts.remove("IGNORE")
            cons = "; ".join(dict.fromkeys(r.consequence for r in rows))
            inv = ",".join(dict.fromkeys(r.investigatory for r in rows))
        else:  # not in the table: the catalogue's entry, its ``unlisted.nvlink5_non_fatal`` when the line says non-fatal
            e = cat.xid(code)
            assert e is not None
            sev = cat.unlisted.nvlink5_non_fatal.severity if fatal is False else e.severity
            acts, cons, inv = e.actions, None, None
        out.append(NvlinkXidDetail(
            id=f"agg:nvlink:{x.id}", node=x.node, evidence=x.evidence, pci_bus_id=x.pci_bus_id, xid=code,  # type: ignore[attr-defined]
            unit=unit, fatal=fatal, link=link, error_status=f"0x{status:08x}" if status is not None else None,
            decoded=bool(rows), severity=sev, actions=",".join(acts), consequence=cons,
            intrinfo=f"0x{intrinfo:08x}" if intrinfo is not None else None,
            subcode=(intrinfo >> 20) & 0x3F if intrinfo is not None else None, matched_by=how if rows else "none",
            # "Link -1": the unit's error is not tied to one link, so the finding sits on the GPU, not on a link
            investigatory=inv, link_label=_label(x.pci_bus_id, link) if link is not None else None,  # type: ignore[attr-defined]
            link_where=f"link {link}" if link is not None else "not tied to one link" if unit else "link not read",
            sources=x.id,
        ))
    return out

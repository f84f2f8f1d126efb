"""A BMC's event log as Redfish serves it: LogEntry members, as operators paste them.

``/redfish/v1/Systems/system/LogServices/EventLog/Entries`` (OpenBMC, HGX HMC), iDRAC's
``Managers/iDRAC.Embedded.1/Logs/Sel`` and ``LogServices/Lclog/Entries``, an EventService
``Event`` (``"Events": [...]``): one JSON object per entry with ``Created`` (or
``EventTimestamp``), ``Message``, ``MessageId`` ("<Registry>.<major>.<minor>.<Key>", or an
iDRAC SEL's hex code), ``Severity`` (or ``MessageSeverity``) OK / Warning / Critical, and for SEL
entries ``SensorType`` and ``EntryCode`` (iDRAC7/8: a list of ``{"Member": ...}``). Sample content
(bb-Ricardo/check_redfish#4, mrlhansen/idrac_exporter#26, ibm-openbmc/openbmc#198)::

    {"@odata.id":"/redfish/v1/Managers/iDRAC.Embedded.1/Logs/Sel/26","@odata.type":"#LogEntry.v1_3_0.LogEntry",
     "Created":"2018-12-19T04:04:14-06:00","EntryCode":"Redundancy Lost","EntryType":"SEL","Id":"26",
     "Message":"Power supply redundancy is lost.","MessageId":"1ffff","SensorType":"Power Supply / Converter","Severity":"Critical"}
    {"EventTimestamp":"2020-06-10T18:11:28+00:00","EventType":"Event","Message":"Chassis state has changed to %s.",
     "MessageId":"Base.1.3.ChassisStateChanged","Severity":"OK"}

phosphor-logging's own D-Bus entries (``openbmc-events view``, the REST ``/xyz/openbmc_project/logging/entry/N``,
``mfg-tool log-display``; openbmc/phosphor-logging#18) are read the same way: ``"Message"`` the error's D-Bus name
(``"org.open_power.Witherspoon.Fault.Error.PowerSupplyInputFault"``), ``"Severity":
"xyz.openbmc_project.Logging.Entry.Level.Error"`` (as bmcweb's translateSeverityDbusToRedfish(): Emergency / Alert /
Critical / Error -> Critical, Warning, Notice / Informational / Debug -> OK), ``"Resolved": true`` no fault any more,
``CALLOUT_INVENTORY_PATH=.../cpu1/core3`` in AdditionalData naming the part.

The document is read with the json module; a paste cut mid-entry or with keys masked by a mail
gateway (``***@***.***": "..."``) is not JSON: then each entry's fields are read one by one
(each value a JSON string literal, decoded by the json module), an entry ending where a field
it already has comes again.

Facts: the SEL reader's (facts/parsers/ipmitool_sel.py) ``ipmi_sel_event`` for an asserted
Warning / Critical entry, its ``event`` the id knowledge/redfish_message_ids.yaml gives the
MessageId (registry and key, the version cut) or, for a SEL entry, its SensorType and EntryCode
(else knowledge/ipmi_sel_events.yaml by the SensorType's ipmitool name and the EntryCode): None
where nothing maps it, an event nobody explains, never healthy; ``ipmi_sel_record`` for an entry
whose Severity is OK, whose EntryCode is Deassert, or which maps to a record of normal operation.
A Dell EEMI id (iDRAC9 Lclog "IDRAC.2.8.PSU0003", or bare "PSU0003") is looked up as
``IDRAC.<id>``; an entry with no MessageId the table knows by its Message (iLO's IML over Redfish:
"Uncorrectable PCI Express Error (Slot 3, ...)", the table's ``texts``); a generic DMTF ResourceEvent
("ResourceErrorsDetected", "ResourceStatusChangedCritical", ...) by the kind of part its message or
arguments name (power supply, fan, DIMM, CPU; a GPU names none: unexplained).
``sensor`` names the power supply, fan, GPU, NVSwitch, DIMM or slot the message or its arguments name
("Power supply 1", "PSU0", "GPU_SXM_3"), else the SensorType; ``detail`` the MessageId. The node
is the file's.
"""
from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from stethoscope.facts import knowledge
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ipmitool_sel import TABLE as SEL_TABLE
from stethoscope.facts.parsers.ipmitool_sel import IpmiSelEvent, IpmiSelRecord

KIND = "redfish_log"
TABLE = "redfish_message_ids.yaml"

#   "@odata.type": "#LogEntry.v1_19_0.LogEntry",        {"@odata.type":"#Event.v1_4_0.Event","Events":[
#   "EntryType": "SEL",                                  "EntryType": "Oem",
#   "Severity": "xyz.openbmc_project.Logging.Entry.Level.Error",      (phosphor-logging's D-Bus entry, openbmc-events / REST / mfg-tool)
_DETECT = re.compile(r'#LogEntry\.v\d|#Event\.v\d|"EntryType"\s{0,4}:\s{0,4}"(?:SEL|Event|Oem)"'
                     r'|"(?:Severity|severity)"\s{0,4}:\s{0,4}"xyz\.openbmc_project\.Logging\.Entry\.Level\.')
#   "Message": "Power supply 1 is absent.",   "Severity":"Critical"   "EntryCode": [ { "Member": "Assert" } ]
_FIELD = re.compile(r'"(?P<key>Id|Created|EventTimestamp|EntryType|EntryCode|Message|MessageId|MessageArgs|Severity|MessageSeverity'
                    r'|SensorType|SensorNumber)"\s{0,8}:\s{0,8}(?P<value>"(?:[^"\\\n]|\\.){0,4000}"|\[\s{0,40}\{\s{0,40}"Member"\s{0,8}:\s{0,8}'
                    r'"[^"\n]{0,200}"|\[[^\]\n]{0,2000}\]|-?\d{1,12})')
_MEMBER = re.compile(r'"Member"\s{0,8}:\s{0,8}("[^"\n]{0,200}")')
# what a message or its arguments name: "power supply 1", "PSU0", "PS2", "Fan 3", "GPU_SXM_3", "NVSwitch_0", "DIMM_B2", "Slot 3" (iLO IML)
_PART = re.compile(r"\b(?P<part>(?:power supply|PSU|PS|fan|GPU(?:_SXM)?|NVSwitch|DIMM|slot)[ _]?(?:[A-Z]?\d{1,3}|[A-Z]\d{0,2}))\b", re.I)
#: the kind of part a generic registry message (DMTF ResourceEvent) is about, by its message and arguments:
#: "/redfish/v1/Chassis/1/PowerSubsystem/PowerSupplies/PSU1", "PSU1", "/Systems/system/Memory/dimm0", "Fan_3", "CPU 1"
#: (a GPU under Processors names no part kind: its entry stays unexplained)
_PART_KINDS = (("power_supply", re.compile(r"PowerSuppl|power supply|\bPSU|\bPS ?\d", re.I)),
               ("fan", re.compile(r"/Fans/|\bfan", re.I)),
               ("memory", re.compile(r"/Memory/|\bDIMM", re.I)),
               ("processor", re.compile(r"/Processors/CPU|\bCPU ?\d", re.I)))
#: a Dell EEMI id given bare as the MessageId ("PSU0003"; iDRAC9 gives "IDRAC.2.8.PSU0003")
_EEMI = re.compile(r"^[A-Z]{2,4}\d{3,4}$")
_ENTRY_KEYS = ("Message", "MessageId")
#  },{"@odata.id":"/redfish/v1/Managers/iDRAC.Embedded.1/Logs/Sel/27"     (pretty: "    },\n    {")
_NEXT = re.compile(r"\}\s{0,40},\s{0,40}\{")


def detect(head: str) -> bool:
    return _DETECT.search(head) is not None


@lru_cache(maxsize=1)
def _tables() -> tuple[Any, Any]:
    return knowledge.load(TABLE), knowledge.load(SEL_TABLE)


def _text(v: Any) -> str | None:
    if isinstance(v, list):  # iDRAC7/8: [{"Member": "Assert"}]
        v = next((m.get("Member") for m in v if isinstance(m, dict)), None)
    return v if isinstance(v, str) else (str(v) if isinstance(v, (int, float)) else None)


def _entries(doc: Any, out: list[dict[str, Any]]) -> None:
    """Every entry-like object of a decoded document, in order (walked with a stack: a document nested
    hundreds deep is no RecursionError)."""
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if any(k in node for k in _ENTRY_KEYS + ("message",)) and any(
                    k in node for k in ("Severity", "MessageSeverity", "EntryCode", "EntryType", "severity")):
                out.append(node)
                continue
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))


def _scan(text: str) -> list[tuple[dict[str, Any], int]]:
    """Entries of a paste that is not JSON: split where one member object ends and the next begins
    ("},{" at any indent: nested Links / Oem objects close with "}}," before a key, never "},{"),
    each part's fields read one by one (the first of each key), with the part's offset."""
    out: list[tuple[dict[str, Any], int]] = []
    bounds = [0] + [m.end() - 1 for m in _NEXT.finditer(text)] + [len(text)]
    for lo, hi in zip(bounds, bounds[1:]):
        cur: dict[str, Any] = {}
        at = -1
        for m in _FIELD.finditer(text, lo, hi):
            key, raw = m["key"], m["value"]
            if key in cur:
                continue
            if raw.startswith("[") and (mm := _MEMBER.search(raw)) is not None:
                raw = mm.group(1)
            try:
                cur[key] = json.loads(raw)
            except ValueError:
                continue
            if key in _ENTRY_KEYS and at < 0:
                at = m.start()
        if at >= 0:
            out.append((cur, at))
    return out


def _decode(text: str) -> list[tuple[Any, int]]:
    """The JSON document(s) a paste holds: decoded from its first "{" and, where that fails, its
    first "[" (an SSE "data: " prefix or a shell prompt "[user@host ~]$" before the document).
    Raises RecursionError for a document nested thousands deep (parse: a parse error)."""
    for start in sorted(i for i in (text.find("{"), text.find("[")) if i >= 0):
        try:
            doc, _ = json.JSONDecoder().raw_decode(text, start)
        except ValueError:
            continue
        return [(doc, start)]
    return []


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = artefact.text
    found: list[tuple[dict[str, Any], int]] = []
    entries: list[dict[str, Any]] = []
    start = 0
    try:
        docs = _decode(text)
    except RecursionError:  # nested thousands deep: nothing of it is read, and the coverage says so
        b.error(1, "Redfish log: JSON nested too deep to decode")
        return result
    for doc, start in docs:
        _entries(doc, entries)
    if entries:
        pos = start
        for e in entries:  # each entry's line: its Message (or MessageId) after the last one's
            needle = json.dumps(_text(e.get("Message")) or _text(e.get("MessageId")) or "")[1:-1]
            at = text.find(needle, pos) if needle else -1
            found.append((e, at if at >= 0 else pos))
            pos = at + 1 if at >= 0 else pos
    else:
        found = _scan(text)
    if not found:
        if _DETECT.search(text) is not None:
            b.error(1, "a Redfish log with no entry read (no Message / MessageId field)")
        return result
    rf, sel = _tables()
    for e, at in found:
        _add(b, artefact.line_of(at), e, rf, sel)
        result.lines_used += 1
    return result


#: phosphor-logging's Entry.Level (xyz/openbmc_project/Logging/Entry.interface.yaml) as a Redfish
#: Severity, the way bmcweb's translateSeverityDbusToRedfish() maps it
_DBUS_LEVEL = {"emergency": "Critical", "alert": "Critical", "critical": "Critical", "error": "Critical",
               "warning": "Warning", "notice": "OK", "informational": "OK", "information": "OK", "debug": "OK"}
#   "CALLOUT_INVENTORY_PATH=/xyz/openbmc_project/inventory/system/chassis/powersupply0"
_CALLOUT = re.compile(r"^CALLOUT_INVENTORY_PATH=\S{0,300}/(?P<part>[^/\s]{1,80})$")


def _add(b: FactBuilder, n: int, e: dict[str, Any], rf: Any, sel: Any) -> None:
    message = _text(e.get("Message")) or _text(e.get("message")) or ""
    mid = _text(e.get("MessageId"))
    severity = (_text(e.get("Severity")) or _text(e.get("MessageSeverity")) or _text(e.get("severity")) or "").strip()
    if severity.startswith("xyz.openbmc_project.Logging.Entry.Level."):  # a D-Bus entry: Message is the error's name
        severity = _DBUS_LEVEL.get(severity.rsplit(".", 1)[1].lower(), "Critical")  # a level it cannot name: not OK
    if mid is None and ".Error." in message and " " not in message:
        mid = message  # bmcweb's EventLog entry of a D-Bus error: "Message": "xyz.openbmc_project.Sensor.Device.Error.ReadFailure"
    code = (_text(e.get("EntryCode")) or "").strip()
    if e.get("Resolved") in (True, 1) or e.get("resolved") is True:
        code = code or "Deassert"  # phosphor-logging: the error was marked resolved
    rtype = (_text(e.get("SensorType")) or "").strip() or None
    stype = rf.sensor_types.get(rtype) if rtype else None
    args = [a for a in e.get("MessageArgs") or () if isinstance(a, str)] if isinstance(e.get("MessageArgs"), list) else []
    about = " ".join([message] + args)
    kind = next((k for k, rx in _PART_KINDS if rx.search(about)), None)
    event = (rf.event_of(mid, rtype, code, kind) or (rf.event_of(f"IDRAC.{mid}", None, None) if mid and _EEMI.match(mid) else None)
             or (rf.event_of_text(message) if message else None))
    entry = next((x for x in sel.events if x.event == event), None) if event else None
    if entry is None and stype and code:  # a SEL entry whose EntryCode is ipmitool's offset name
        entry = sel.entry(stype, code)
    asserted = code.lower() not in ("deassert", "deasserted", "deassertion")
    fault = entry.cause is not None if entry is not None else severity.lower() not in ("ok", "")
    extra = e.get("AdditionalData") or e.get("additional_data")
    callout = next((m["part"] for a in extra if isinstance(a, str) and (m := _CALLOUT.match(a))), None) \
        if isinstance(extra, list) else None
    part = _PART.search(about)
    cls = IpmiSelEvent if asserted and fault and severity.lower() != "ok" else IpmiSelRecord
    created = _text(e.get("Created")) or _text(e.get("EventTimestamp")) or _text(e.get("timestamp")) or ""
    ms = e.get("Timestamp")  # phosphor-logging: milliseconds since the epoch, UTC ("Timestamp": 1519148632287)
    if not created and isinstance(ms, int) and 0 < ms < 10**14:
        created = datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")
    date, _, time = created.partition("T")
    b.add(cls, n, record_id=_text(e.get("Id")) or "", date=date or None, time=time or None,
          sensor_type=(entry.sensor_type if entry is not None else stype),
          sensor=callout or (part["part"] if part else (rtype or mid or "")),
          description=message or (mid or ""), detail=mid, asserted=asserted,
          event=entry.event if entry is not None else None)


#: the line signatures this reader owns (facts/classify.py matches all readers' in one pass)
SIGNATURES = (_DETECT,)

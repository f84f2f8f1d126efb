"""A server's management-controller events as vendors' tools print them in text (not IPMI's table).

Operators of GPU servers paste what the BMC's web page, the vendor's agent or its CLI shows,
one event a line or block, rather than ``ipmitool sel elist``. Sample content:

- **Supermicro (and other AMI-based BMCs)**: the health event log's description, IPMI's own
  offset string, ``@`` the sensor's location, and the direction (openstreetmap/operations#1364,
  #962)::

    Uncorrectable ECC / other uncorrectable memory error @P2-DIMMH2(CPU2) - Assertion

- **HPE Integrated Management Log**: ``hplog -v`` / ``hpasmcli -s "show iml"`` (a header line of
  id, severity, initial and update time, count, then ``LOG: <description>``; openstreetmap/operations#278),
  the Redfish IML dump of ilorest's examples (``<Severity>: Class <n> / Code <m>: <description>``;
  HewlettPackard/python-ilorest-library-old#8), or the bare description as iLO's page lists it
  (openstreetmap/operations#1182)::

    1346 Critical       04:07  11/05/2018 04:07  11/05/2018 0001
    LOG: Uncorrectable Machine Check Exception (Board 0, Processor 1, APIC ID 0x00000010, Bank 0x00000005, ...)
    OK: Class 8 / Code 2:   Uncorrectable PCI Express Error (Embedded device, Bus 0, Device 2, Function 0, Error status 0x00000024)
    DIMM Failure - Uncorrectable Memory Error (Processor 2, DIMM 3)

- **HPE power supply status**: ``hpasmcli -s "show powersupply"`` blocks (``Power supply #1`` ...
  ``Condition: FAILED``) and ``hplog -p`` rows (``1  Standard     Pwr. Supply Bay Failed     No``;
  openstreetmap/operations#242).

- **Meta's OpenBMC** (facebook/openbmc's ipmid, common/recipes-core/ipmid/files/sel.c ``parse_sel``:
  ``syslog(LOG_CRIT, "SEL Entry: FRU: %d, Record: %s (0x%02X), Time: %s, Sensor: %s (0x%02X), Event Data: (%s) %s", ...)``
  for a standard record, the last ``%s`` the platform's ``pal_parse_sel`` text, ending ``Assertion`` or
  ``Deassertion``), as ``log-util --print`` lists the BMC's log (facebook/OpenBIC#454)::

    4    slot4    2018-03-13 07:37:12    ipmid            SEL Entry: FRU: 4, Record: Standard (0x02), Time: 2018-03-13 07:37:12, Sensor: PMIC_ERR (0xB4), Event Data: (000C00) DIMM A0 High temp warning Assertion

- **Dell EEMI message ids** (iDRAC, Lifecycle log, POST) quoted with their message
  (dsx-ai-factory/infra-controller#6282)::

    UEFI0080: PCIe link speed is not optimal for Bus:201 D:1 F:0.

Facts: the SEL reader's (facts/parsers/ipmitool_sel.py), so the catalogue rule
(ipmi_sel_event_catalogue) reports them with ipmi_sel_events.yaml's cause, component and actions.
``event``: a Supermicro description by IPMI's offset string (ipmi_sel_events.yaml, the one sensor
type that lists it, or the one the location names); an HPE IML description by
knowledge/redfish_message_ids.yaml's ``texts``; a Dell id as ``IDRAC.<id>`` there. ``sensor`` names
the part: the Supermicro location, the IML's "(Processor 2, DIMM 3)" / "(Slot 3, ...)", the power
supply, the Dell message's power supply, slot or bus, OpenBMC's sensor name with the part its text names. ``ipmi_sel_event`` for an asserted fault
(IML severity "OK" included: iLO 4 reported unrepaired machine checks as OK, as #8 shows; the
description decides), an unmapped description or id (event None: unexplained, never healthy);
``ipmi_sel_record`` for a deassertion, an IML entry marked Repaired or Informational that maps to
no fault, a power supply in condition Ok / Normal. The node is the file's.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from stethoscope.facts import knowledge
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.ipmitool_sel import TABLE as SEL_TABLE
from stethoscope.facts.parsers.ipmitool_sel import IpmiSelEvent, IpmiSelRecord
from stethoscope.facts.parsers.redfish_log import TABLE as RF_TABLE

KIND = "bmc_event_text"

#   Uncorrectable ECC / other uncorrectable memory error @P2-DIMMH2(CPU2) - Assertion      (openstreetmap/operations#1364)
# (a bullet, quote or backtick may lead; the description is bounded and stops at the first "@")
_SMC = re.compile(r"^[\s`>*-]{0,8}(?P<desc>[A-Za-z][^@\n]{1,200}) @(?P<loc>[^\s@]{1,80}) - (?P<dir>Assertion|Deassertion)\s*$")
#   1346 Critical       04:07  11/05/2018 04:07  11/05/2018 0001                              (hplog -v, openstreetmap/operations#278)
_IML_HEAD = re.compile(r"^\s*(?P<id>\d{1,6}) +(?P<sev>Critical|Caution|Repaired|Informational|Info|Warning) +(?P<time>\d{1,2}:\d{2}) +"
                       r"(?P<date>\d{1,2}/\d{1,2}/\d{4}) +\d{1,2}:\d{2} +\d{1,2}/\d{1,2}/\d{4} +\d{1,6}\s*$")
#   LOG: Uncorrectable Machine Check Exception (Board 0, Processor 1, APIC ID 0x00000010, ...)
_IML_LOG = re.compile(r"^\s*LOG: (?P<desc>\S.*)$")
#   OK: Class 5 / Code 3:   Uncorrectable Machine Check Exception (Board 0, Processor 1, ...)   (python-ilorest-library-old#8)
_IML_DUMP = re.compile(r"^\s*(?P<sev>OK|Warning|Critical|Repaired|Informational): Class (?P<cls>\d{1,3}) / Code (?P<code>\d{1,4}):\s+(?P<desc>\S.*)$")
#   DIMM Failure - Uncorrectable Memory Error (Processor 2, DIMM 3)                          (iLO IML page, openstreetmap/operations#1182)
# the IML descriptions knowledge/redfish_message_ids.yaml lists, as a whole line (a signature: static)
_IML_BARE = re.compile(r"^[\s`>*-]{0,8}(?P<desc>(?:Uncorrectable Machine Check Exception|Unrecoverable System Error \(NMI\) has occurred"
                       r"|Uncorrectable PCI Express Error|DIMM Failure - Uncorrectable Memory Error)\b.*)$", re.M)
#   Power supply #1        then      \tCondition: FAILED                                        (hpasmcli "show powersupply", #242)
_HPASM_PS = re.compile(r"^\s*Power supply #(?P<n>\d{1,2})\s*$")
_HPASM_COND = re.compile(r"^\s*Condition\s*: (?P<cond>\S+)\s*$")
#    1  Standard     Pwr. Supply Bay Failed     No                                              (hplog -p, #242)
_HPLOG_PS = re.compile(r"^\s*(?P<n>\d{1,2}) +\S+ +Pwr\. Supply Bay +(?P<status>Normal|Failed|Degraded|Absent|N/A|Unknown)\b")
#   `UEFI0080: PCIe link speed is not optimal for Bus:201 D:1 F:0.                             (infra-controller#6282)
# Dell EEMI categories of hardware (PSU, PWR, MEM, PCI, CPU, UEFI, TMP, FAN, RDU, VLT, HWC, PST, BAT, GPU)
#   ... ipmid   SEL Entry: FRU: 4, Record: Standard (0x02), Time: 2018-03-13 07:37:12, Sensor: PMIC_ERR (0xB4),
#   Event Data: (000C00) DIMM A0 High temp warning Assertion          (Meta OpenBMC ipmid sel.c, facebook/OpenBIC#454)
# (a standard record only: OEM records print "MFG ID: ... OEM Data: ..." and no assertion; the text bounded, its
# direction the line's last word)
_FB_SEL = re.compile(r"SEL Entry: FRU: (?P<fru>\d{1,3}), Record: Standard \(0x02\), Time: (?P<date>\d{4}-\d\d-\d\d) (?P<time>\d\d:\d\d:\d\d), "
                     r"Sensor: (?P<sensor>[^\n(]{1,64}?) \(0x[0-9A-Fa-f]{2}\), Event Data: \([0-9A-Fa-f]{6}\) (?P<desc>[^\n]{1,300}) "
                     r"(?P<dir>Assertion|Deassertion)[ \t]*$")
_DELL = re.compile(r"(?:^|[\s`\"'(\[])(?P<id>(?:PSU|PWR|MEM|PCI|CPU|UEFI|TMP|FAN|RDU|VLT|HWC|PST|BAT|GPU)\d{4}): (?P<msg>\S[^\n]{0,400})")
# the part a message names: "Processor 2, DIMM 3", "Processor 1" (a machine check's), "Slot 3", "power supply 1", "PSU 2", "Fan 4", "Bus:201 D:1 F:0"
_PART = re.compile(r"\b(?:Processor \d{1,2}, DIMM \d{1,2}|Processor \d{1,2}|DIMM[ _]?[A-Z]?\d{1,2}|Slot \d{1,2}|power supply \d{1,2}|PSU ?\d{1,2}|Fan ?\d{1,2}"
                   r"|GPU ?\d{1,2}|Bus: ?\d{1,3} D: ?\d{1,2} F: ?\d)\b", re.I)
# the location's hint for a description several sensor types list ("PS2", "FAN3", "P1-DIMMA1", "CPU1")
_HINTS = (("Power Supply", re.compile(r"^PS|PSU|PWS", re.I)), ("Fan", re.compile(r"^FAN", re.I)),
          ("Memory", re.compile(r"DIMM", re.I)), ("Processor", re.compile(r"^CPU", re.I)))

_DETECT = re.compile(r" @\S{1,80} - (?:Assertion|Deassertion)\s*$|^\s*LOG: |: Class \d{1,3} / Code \d{1,4}:|Pwr\. Supply Bay"
                     r"|^\s*Power supply #\d|SEL Entry: FRU: \d{1,3}, Record: Standard \(0x02\), |(?:PSU|PWR|MEM|PCI|CPU|UEFI|TMP|FAN|RDU|VLT|HWC|PST|BAT|GPU)\d{4}: \S", re.M)


def detect(head: str) -> bool:
    if _DETECT.search(head) is None and not any(_IML_BARE.match(x) for x in head.splitlines()[:200]):
        return False
    return any(_claim(x) for x in head.splitlines()[:400])


def _claim(line: str) -> bool:
    return bool(_SMC.match(line) or _IML_HEAD.match(line) or _IML_DUMP.match(line) or _IML_BARE.match(line)
                or _HPLOG_PS.match(line) or _DELL.search(line) or _HPASM_PS.match(line) or _FB_SEL.search(line))


@lru_cache(maxsize=1)
def _tables() -> tuple[Any, Any]:
    return knowledge.load(RF_TABLE), knowledge.load(SEL_TABLE)


def _by_description(sel: Any, desc: str, loc: str) -> Any:
    """ipmi_sel_events.yaml's entry of an IPMI offset string whatever its sensor type: the one type
    listing it, or of several the one the location names (None: unread, unexplained)."""
    hits = [t for t in sel.sensor_types() if (e := sel.entry(t, desc)) is not None and e.sensor_type == t
            and " ".join(desc.split()).lower() in {" ".join(d.split()).lower() for d in e.descriptions}]
    if len(hits) > 1:
        hits = [t for t, rx in _HINTS if t in hits and rx.search(loc)]
    return sel.entry(hits[0], desc) if len(hits) == 1 else None


def _part(text: str) -> str | None:
    m = _PART.search(text)
    return m.group(0) if m else None


def _entry_of(sel: Any, event: str | None) -> Any:
    return next((x for x in sel.events if x.event == event), None) if event else None


def _emit(b: FactBuilder, n: int, entry: Any, fault: bool, desc: str, sensor: str, rid: str = "",
          date: str | None = None, time: str | None = None, detail: str | None = None, asserted: bool = True) -> None:
    cls = IpmiSelEvent if asserted and fault else IpmiSelRecord
    b.add(cls, n, record_id=rid, date=date, time=time, sensor_type=entry.sensor_type if entry is not None else None,
          sensor=sensor, description=desc, detail=detail, asserted=asserted, event=entry.event if entry is not None else None)


def _iml(b: FactBuilder, n: int, rf: Any, sel: Any, desc: str, sev: str, rid: str = "", date: str | None = None,
         time: str | None = None, detail: str | None = None) -> None:
    """An IML entry: a fault by its description (whatever its severity but Repaired), else by its
    severity (Critical / Caution / Warning unexplained; OK / Informational a record)."""
    entry = _entry_of(sel, rf.event_of_text(desc))
    repaired = sev.lower() == "repaired"
    if entry is not None:
        fault = entry.cause is not None and not repaired
    else:
        fault = sev.lower() in ("critical", "caution", "warning")
    _emit(b, n, entry, fault, desc.strip(), _part(desc) or "IML", rid, date, time, detail, asserted=not repaired)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    rf, sel = _tables()
    head: dict[str, str] | None = None  # the IML header line waiting for its LOG: line
    psu: str | None = None  # the hpasmcli power supply block being read
    for n, line in enumerate(artefact.lines, 1):
        if (m := _SMC.match(line)) is not None:
            desc, loc = m["desc"].strip(), m["loc"]
            entry = _by_description(sel, desc, loc)
            fault = entry.cause is not None if entry is not None else True
            _emit(b, n, entry, fault, desc, loc, asserted=m["dir"] == "Assertion")
        elif (m := _IML_HEAD.match(line)) is not None:
            head = m.groupdict()
        elif (m := _IML_LOG.match(line)) is not None and head is not None:
            _iml(b, n, rf, sel, m["desc"], head["sev"], head["id"], head["date"], head["time"])
            head = None
        elif (m := _IML_DUMP.match(line)) is not None:
            _iml(b, n, rf, sel, m["desc"], m["sev"], detail=f"Class {m['cls']} / Code {m['code']}")
        elif (m := _IML_BARE.match(line)) is not None:
            _iml(b, n, rf, sel, m["desc"], "")
        elif (m := _HPASM_PS.match(line)) is not None:
            psu = f"Power supply #{m['n']}"
            continue
        elif (m := _HPASM_COND.match(line)) is not None and psu is not None:
            bad = m["cond"].lower() not in ("ok", "n/a")
            entry = sel.entry("Power Supply", "Failure detected") if bad else None
            _emit(b, n, entry, bad, f"Condition: {m['cond']}", psu)
            psu = None
        elif (m := _HPLOG_PS.match(line)) is not None:
            bad = m["status"] in ("Failed", "Degraded")
            entry = sel.entry("Power Supply", "Failure detected") if bad else None
            _emit(b, n, entry, bad, f"Pwr. Supply Bay {m['status']}", f"Power supply #{m['n']}")
        elif (m := _FB_SEL.search(line)) is not None:
            # the platform's text: an IPMI offset string where it is one (else unread: unexplained, never healthy)
            desc, sensor = m["desc"].strip(), m["sensor"].strip()
            entry = _by_description(sel, desc, sensor)
            fault = entry.cause is not None if entry is not None else True
            _emit(b, n, entry, fault, desc, f"{sensor} ({_part(desc)})" if _part(desc) else sensor, date=m["date"],
                  time=m["time"], detail=f"FRU {m['fru']}", asserted=m["dir"] == "Assertion")
        elif (m := _DELL.search(line)) is not None:
            msg = m["msg"].strip().rstrip("`")
            entry = _entry_of(sel, rf.event_of(f"IDRAC.{m['id']}", None, None))
            fault = entry.cause is not None if entry is not None else True
            _emit(b, n, entry, fault, msg, _part(msg) or m["id"], detail=m["id"])
        else:
            continue
        result.lines_used += 1
    if head is not None:  # an IML header whose LOG: line the paste cut off
        b.error(len(artefact.lines), "an IML entry's header with no LOG: line after it")
    return result


#: the line signatures this reader owns (facts/classify.py matches all readers' in one pass)
SIGNATURES = (_DETECT, _IML_BARE)

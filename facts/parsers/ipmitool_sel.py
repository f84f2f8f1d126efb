"""The BMC's System Event Log as ``ipmitool sel list`` / ``ipmitool sel elist`` print it.

When a GPU node rebooted, lost a GPU or throttled, the BMC's log says what the platform saw:
a power supply failing, a PCIe bus error caught by the firmware, a temperature or fan past its
critical threshold, a DIMM's ECC errors, a CPU's IERR. One row per event; ``elist`` names the
sensor from the SDR where ``list`` gives its number. Sample content (open-power/op-build#594)::

       1 | 01/01/2000 | 00:15:20 | System Firmware Progress #0x05 | Motherboard initialization | Asserted

ipmitool's own format (lib/ipmi_sel.c ipmi_sel_print_std_entry)::

    "%4x | " record id; "%s | %s | " date, time (or " Pre-Init  |%010d| " before the BMC's clock
    was set); "%s " sensor type then the SDR's id string (elist) or " #0x%02x" (list); " | " the
    event description, ipmitool's string plus " (%s)" detail on some platforms; " | Asserted" or
    " | Deasserted"; threshold events in elist add " | Reading %.*f > Threshold %.*f <unit>".
    OEM records: "%4x | <date> | <time> | OEM record %02x | <manufacturer> | <data>".
    ``sel list -v`` / ``sel get`` (ipmi_sel_print_std_entry_verbose): a block per record,
    "SEL Record ID          : %04x", " Timestamp             : %s %s", " Sensor Type           : %s",
    " Sensor Number         : %02x", " Event Direction       : Assertion Event" (or "Deassertion
    Event"), " Description           : %s": the fact cites the Description line.

Facts: ``ipmi_sel_event`` per asserted event that is not a record of normal operation (its
``event`` the id knowledge/ipmi_sel_events.yaml gives the sensor type and description, None when
the table does not name it: such an event stays unexplained, never healthy);
``ipmi_sel_record`` per deasserted event, informational event (boot, firmware progress, log
cleared, presence) and OEM record: read, no fault. Every fact carries the sensor type, the
sensor's name or number, the description, the direction and the timestamp as printed. The node
is the file's. Empty input, or ``SEL has no entries``: nothing.
"""
from __future__ import annotations

import re
from functools import lru_cache

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.host import (  # noqa: F401 - the fact classes live in facts/kinds
    IpmiSelCatalogueEntry, IpmiSelEvent, IpmiSelRecord,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "ipmitool_sel"
TABLE = "ipmi_sel_events.yaml"

#: ipmitool's sensor type strings (lib/ipmi_sdr.c sensor_type_desc[], lib/ipmi_strings.c
#: ipmi_generic_sensor_type_vals[]) and those of ipmitool before 1.8.13, which printed the event
#: table's name ("System Firmware Progress #0x05", "Drive Slot", "Watchdog 2"); "Unknown" for a
#: type it cannot name. The type comes first in the sensor column, the SDR's name after it.
SENSOR_TYPES = tuple(sorted({
    "Temperature", "Voltage", "Current", "Fan", "Physical Security", "Platform Security", "Processor",
    "Power Supply", "Power Unit", "Cooling Device", "Other", "Memory", "Drive Slot / Bay", "POST Memory Resize",
    "System Firmwares", "Event Logging Disabled", "Watchdog1", "System Event", "Critical Interrupt", "Button",
    "Module / Board", "Microcontroller", "Add-in Card", "Chassis", "Chip Set", "Other FRU", "Cable / Interconnect",
    "Terminator", "System Boot Initiated", "Boot Error", "OS Boot", "OS Critical Stop", "Slot / Connector",
    "System ACPI Power State", "Watchdog2", "Platform Alert", "Entity Presence", "Monitor ASIC", "LAN",
    "Management Subsys Health", "Battery", "Session Audit", "Version Change", "FRU State", "Unknown",
    # ipmitool < 1.8.13
    "System Firmware Progress", "System Firmware Error", "System Firmware Hang", "Drive Slot", "Watchdog 1",
    "Watchdog 2", "Cable/Interconnect", "Slot/Connector", "Module/Board", "Microcontroller/Coprocessor",
    "Monitor ASIC/IC", "Management Subsystem Health", "OS Stop/Shutdown", "FRU Hot Swap", "Module Hot Swap",
    "IPMB-0 Status", "Other Units-based Sensor", "ACPI Device Power State",
}, key=len, reverse=True))

#    1 | 01/01/2000 | 00:15:20 | System Firmware Progress #0x05 | Motherboard initialization | Asserted
#    9 | 01/02/2024 | 10:07:00 | Power Unit PWR_STATUS | Power off/down | Asserted      (the format below, ipmi_sel.h's Power Unit string)
#   3a | 12/14/22 | 23:09:44 CET | Memory #0x88 | Correctable ECC (CPU0_G1) | Asserted      (1.8.19: 2-digit year, zone)
#   6a | 04/12/2024 | 03:27:29 PM CDT | Critical Interrupt | Bus Correctable error () | Asserted
#        (1.8.19 in a 12-hour locale: lib/ipmi_time.c prints the date "%x" and the time "%X %Z", the locale's own forms;
#         illinois-scicomp/machine-shop-maintenance#76)
#    1 |  Pre-Init  |0000000013| Power Supply PS1 Status | Failure detected | Asserted     (before the BMC's clock was set)
#    1 | 01/02/2024 | 10:00:00 | Temperature GPU1_Temp | Upper Critical going high | Asserted | Reading 96 > Threshold 90 degrees C
# (linear: the blanks around "|" taken whole (\s*+: no column starts with a blank), sensor and description
#  end on a non-blank and the reading is greedy to its last non-blank, as the shortest match did; lazily,
#  a long run of blanks in a column was scanned to its end once per step into it)
_ROW = re.compile(
    r"^\s*+(?P<id>[0-9a-fA-F]{1,4}) \|\s*+(?:(?P<date>\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}) \| (?P<time>\d{1,2}:\d{2}:\d{2}(?: [AP]M)?(?: [A-Z]{2,5})?)"
    r"|Pre-Init\s*+\|\s*+(?P<uptime>\d+))\s*+\|\s*+(?P<sensor>(?:[^|]{0,299}?[^|\s])??)\s*+\|\s*+(?P<desc>(?:[^|]{0,299}?[^|\s])??)\s*+\|\s*+"
    r"(?P<dir>Asserted|Deasserted)\s*+(?:\|\s*+(?P<reading>(?:.*\S)?))?\s*$"
)
#   8b | 08/31/2016 | 06:21:15 | OEM record df | 040020 | 12616faaaaaa
_OEM = re.compile(r"^\s*[0-9a-fA-F]{1,4} \|[^|]*\|[^|]*\| OEM record [0-9a-fA-F]{2} \|")
# FreeIPMI's ipmi-sel (ipmi-sel/ipmi-sel.c, the same SEL through libfreeipmi's own strings): a
# header "ID | Date | Time | Name | Type | [State |] [Event Direction |] Event", the date "%b-%d-%Y"
# or "PostInit" / "PreInit" before the BMC's clock was set, the Name column the SDR's id string
# (with --entity-sensor-names the entity first: "Power Supply 2 PS2 Status"), Type its sensor type,
# State (--output-event-state) FreeIPMI's interpretation Nominal / Warning / Critical, Event Direction
# (--verbose) "Assertion Event" / "Deassertion Event"; without it the row is an assertion
# (thomas-krenn/check_ipmi_sensor_v3#26, #66):
# 3    | Dec-09-2024 | 21:12:29 | Power Supply 2 PS2 Status                         | Power Supply      | Critical | Power Supply Failure detected
# 1    | PostInit    | PostInit | Sensor #0                                         | OS Boot           | Nominal  | C: boot completed
# (linear as _ROW: blanks possessive, each column ends on a non-blank, bounded)
_FREEIPMI = re.compile(
    r"^\s*+(?P<id>\d{1,6})\s*+\|\s*+(?P<date>[A-Z][a-z]{2}-\d{2}-\d{4}|PostInit|PreInit|Unknown)\s*+\|\s*+"
    r"(?P<time>\d{2}:\d{2}:\d{2}|PostInit|PreInit|Unknown)\s*+\|\s*+(?P<sensor>(?:[^|]{0,299}?[^|\s])??)\s*+\|\s*+"
    r"(?P<type>(?:[^|]{0,79}?[^|\s])??)\s*+\|(?:\s*+(?P<state>Nominal|Warning|Critical|N/A)\s*+\|)?"
    r"(?:\s*+(?P<dir>Assertion Event|Deassertion Event)\s*+\|)?\s*+(?P<desc>(?:[^|]{0,399}?[^|\s])??)\s*$"
)
#  description's detail suffix: "Failure detected ()", "Correctable ECC (CPU0_G1)"
_DETAIL = re.compile(r"^(?P<desc>.*?)\s*\((?P<detail>[^()]*)\)$")
# sel list -v / sel get (ipmi_sel_print_std_entry_verbose): one block per record, a field a line
#   SEL Record ID          : %04x          Timestamp             : %s %s
#    Sensor Type           : %s            Sensor Number         : %02x
#    Event Direction       : Assertion Event | Deassertion Event      Description           : %s
_VERBOSE = re.compile(r"^\s*(?P<key>SEL Record ID|Record Type|Timestamp|Generator ID|EvM Revision|Sensor Type|Sensor Number|Event Type"
                      r"|Event Direction|Event Data(?: \(RAW\))?|Description)\s+: ?(?P<value>.*?)\s*$")
_DETECT = re.compile(r"^\s*[0-9a-fA-F]{1,4} \| .* \| (?:Asserted|Deasserted)\b|^ Event Direction +: (?:Assertion|Deassertion) Event$", re.M)
#: FreeIPMI's header line "ID   | Date        | Time     | Name     | Type     | State    | Event", or a row's
#: id, "%b-%d-%Y" date (or PostInit / PreInit) and time: "3    | Dec-09-2024 | 21:12:29 | "
_FREEIPMI_DETECT = re.compile(r"^ID +\| Date +\| Time +\| Name +\| Type +\|(?: State +\|)?(?: Event Direction +\|)? Event$"
                              r"|^ *\d{1,6} +\| (?:[A-Z][a-z]{2}-\d{2}-\d{4}|PostInit +|PreInit +) \| (?:\d{2}:\d{2}:\d{2}|PostInit|PreInit) +\| ", re.M)


def detect(head: str) -> bool:
    if ("| Event" in head or "Init" in head or ":" in head) and _FREEIPMI_DETECT.search(head) is not None:  # FreeIPMI
        return True
    if "sserted" not in head and "ssertion Event" not in head:  # Asserted, Deasserted; sel list -v
        return False
    return _DETECT.search(head) is not None


@lru_cache(maxsize=1)
def _table() -> knowledge.IpmiSelEvents:
    return knowledge.load(TABLE)


def split_sensor(column: str) -> tuple[str | None, str]:
    """("Power Supply", "PSU1_Status") from "Power Supply PSU1_Status"; (None, column) when the
    column does not start with a sensor type ipmitool prints."""
    for t in SENSOR_TYPES:
        if column.startswith(t) and (len(column) == len(t) or column[len(t)] == " "):
            return t, column[len(t):].strip()
    return None, column


def _add(b: FactBuilder, n: int, table: knowledge.IpmiSelEvents, sensor_type: str | None, desc: str,
         asserted: bool, nominal: bool = False, **fields: object) -> None:
    """``nominal``: the tool itself rated the event Nominal (FreeIPMI's State column): an event the
    table does not name is then a record, not an unexplained fault."""
    detail = None
    if (d := _DETAIL.match(desc)) is not None:
        desc, detail = d["desc"], d["detail"] or None
    entry = table.entry(sensor_type, desc)
    fault = entry.cause is not None if entry is not None else not nominal
    cls = IpmiSelEvent if asserted and fault else IpmiSelRecord
    b.add(cls, n, sensor_type=sensor_type, description=desc, detail=detail, asserted=asserted,
          event=entry.event if entry else None, **fields)


def _verbose(b: FactBuilder, n: int, line: str, block: dict[str, str], table: knowledge.IpmiSelEvents) -> bool:
    """One field line of ``sel list -v``; the Description line ends a record and makes its fact."""
    m = _VERBOSE.match(line)
    if m is None:
        return False
    key, value = m["key"], m["value"]
    if key == "SEL Record ID":
        block.clear()
    block[key] = value
    if key == "Description" and "SEL Record ID" in block and "Event Direction" in block:
        stype = block.get("Sensor Type")
        sensor_type = stype if stype in SENSOR_TYPES else None
        date, _, time = block.get("Timestamp", "").partition(" ")
        num = block.get("Sensor Number")
        _add(b, n, table, sensor_type, value, block["Event Direction"].startswith("Assertion"),
             record_id=block["SEL Record ID"].lstrip("0") or "0", date=date or None, time=time or None,
             sensor=f"#0x{num}" if num else (stype or ""))
        block.clear()
    return True


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    table = _table()
    block: dict[str, str] = {}
    for n, line in enumerate(artefact.lines, 1):
        if "|" not in line:
            if " : " in line and _verbose(b, n, line, block, table):
                result.lines_used += 1
            continue
        m = _ROW.match(line)
        if m is None and (f := _FREEIPMI.match(line)) is not None:
            stype = f["type"]
            _add(b, n, table, stype if stype in SENSOR_TYPES else None, f["desc"], f["dir"] != "Deassertion Event",
                 nominal=f["state"] == "Nominal", record_id=f["id"], date=f["date"], time=f["time"],
                 sensor=f["sensor"], reading=None)
            result.lines_used += 1
            continue
        if m is None:
            if _OEM.match(line):
                rid = line.split("|", 1)[0].strip()
                b.add(IpmiSelRecord, n, record_id=rid, sensor="OEM record", description="", asserted=True)
                result.lines_used += 1
            continue
        sensor_type, sensor = split_sensor(m["sensor"])
        _add(b, n, table, sensor_type, m["desc"], m["dir"] == "Asserted", record_id=m["id"], date=m["date"],
             time=m["time"], sensor=sensor or m["sensor"], reading=m["reading"] or None)
        result.lines_used += 1
    return result


#: the line signatures this reader owns (facts/classify.py matches all readers' in one pass)
SIGNATURES = (_DETECT, _FREEIPMI_DETECT)

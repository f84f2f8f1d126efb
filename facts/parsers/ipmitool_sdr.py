"""The BMC's sensor readings as ``ipmitool sdr [list]``, ``ipmitool sdr elist`` and
``ipmitool sensor`` print them: one sensor a line, its reading and the status ipmitool derives
from the sensor's thresholds. Sample content (ateodorescu/home-assistant-ipmi#52,
tigerblue77/Dell_iDRAC_fan_controller_Docker#36)::

    Fan3B            | 0 RPM             | cr
    Inlet Temp       | 32 degrees C      | ok
    Ambient Temp     | 0Eh | ok  |  7.1 | 19 degrees C
    VCORE PG         | 12h | ok  |  3.1 | State Deasserted

ipmitool's formats: ``sdr list`` (lib/ipmi_sdr.c ipmi_sdr_print_sensor_fc) ``"%-16s | "`` name,
``"%s %s"`` reading and unit (``0x%02x`` for a discrete sensor, ``no reading`` / ``disabled``
without one), ``" | %s"`` status; ``sdr elist`` ``"%-16s | %02Xh | %-3s | %2d.%1d | "`` name,
number, status, entity, then the reading or the discrete states; ``sensor``
(lib/ipmi_sensor.c) ``"%-16s | %-10s | %-10s | %-6s"`` name, value, unit, status, then the six
thresholds lnr lcr lnc unc ucr unr (``na`` where unset). The status
(ipmi_sdr_get_thresh_status): ``ok``; ``nc``/``lnc``/``unc`` (non-critical), ``cr``/``lcr``/
``ucr`` (critical), ``nr``/``lnr``/``unr`` (non-recoverable); ``ns`` no reading. A discrete
sensor's status is ``ok`` whatever its bits say (a failed PSU can read ``0x0b | ok``): only
threshold statuses are judged.

Facts: ``ipmi_sensor_reading`` per sensor line (``measure`` from ipmitool's unit string:
temperature, fan, electrical, other, discrete, unknown where no reading; ``level`` ok / non_critical / critical /
non_recoverable / no_reading from the status). The node is the file's. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import (  # noqa: F401 - the fact classes live in facts/kinds
    IpmiSensorReading,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "ipmitool_sdr"

_STATUS = r"(?P<status>ok|ns|nc|cr|nr|lnc|lcr|lnr|unc|ucr|unr)"
# sdr list:   Fan3B            | 0 RPM             | cr
#             PS1 Status       | 0x01              | ok          MB_10G Temp      | no reading        | ns
_LIST = re.compile(r"^(?P<name>[^|]{0,200}?\S)\s*\| (?P<reading>[^|]{0,200}?)\s*\| " + _STATUS + r"\s*$")
# sdr elist:  Ambient Temp     | 0Eh | ok  |  7.1 | 19 degrees C
#             CMOS Battery     | 10h | ok  |  7.1 |
_ELIST = re.compile(r"^(?P<name>[^|]{0,200}?\S)\s*\| (?P<num>[0-9A-Fa-f]{2})h \| " + _STATUS + r"\s*\|\s*\d+\.\d+ \|\s?(?P<reading>(?:.*\S)?)\s*$")
# sensor:     CPU1 Temp        | 45.000     | degrees C  | ok    | na        | na        | na        | 85.000    | 90.000    | 95.000
#             PS1 Status       | 0x1        | discrete   | 0x0100| na        | na        | na        | na        | na        | na
#   (the status a run of non-blanks without a bar; each threshold cell one run of non-bars: blanks around a lazy cell
#   made every cell split its spaces many ways, and a long line of repeated 'Fan2B   | 7080' cells, a mutated
#   hass52_sdr_list_full_fans_cr.txt, took minutes; the cells are stripped where they are read)
_SENSOR = re.compile(
    r"^(?P<name>[^|]{0,200}?\S)\s*\| (?P<value>[^|]{0,200}?)\s*\| (?P<unit>[^|]{0,200}?)\s*\| (?P<status>[^|\s]+)\s*"
    r"\|(?P<t>(?:[^|]{0,200}\|){5}[^|]{0,200})$"
)
_VALUE = re.compile(r"^(?P<v>-?\d+(?:\.\d+)?)(?: (?P<unit>.+))?$")
_DETECT = re.compile(r"^[^|\n]{1,40}\| (?:[^|\n]{1,30}\| (?:ok|ns|nc|cr|nr|lnc|lcr|lnr|unc|ucr|unr)\s*$"
                     r"|[0-9A-Fa-f]{2}h \| (?:ok|ns|nc|cr|nr|lnc|lcr|lnr|unc|ucr|unr)\s*\|\s*\d+\.\d+ \|"
                     r"|[^|\n]{1,12}\| [^|\n]{1,12}\| (?:ok|ns|nc|cr|nr|lnc|lcr|lnr|unc|ucr|unr|0x[0-9a-f]{4}|na)\s*\|)", re.M)

_LEVELS = {"ok": "ok", "ns": "no_reading", "nc": "non_critical", "lnc": "non_critical", "unc": "non_critical",
           "cr": "critical", "lcr": "critical", "ucr": "critical", "nr": "non_recoverable", "lnr": "non_recoverable",
           "unr": "non_recoverable"}
#: ipmitool's unit strings (lib/ipmi_sdr.c unit_desc[]) -> what the sensor measures
_MEASURES = {"degrees C": "temperature", "degrees F": "temperature", "degrees K": "temperature", "RPM": "fan",
             "Volts": "electrical", "Amps": "electrical", "Watts": "electrical", "percent": "other"}


def detect(head: str) -> bool:
    if "|" not in head:
        return False
    return len(_DETECT.findall(head, 0, 20000)) >= 2


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _measure(unit: str | None, status: str) -> str:
    if unit is None and status == "ns":
        return "unknown"
    if unit in (None, "discrete"):
        return "discrete"
    return _MEASURES.get(unit, "other")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if line.count("|") < 2:
            continue
        thresholds: list[str] = []
        if (m := _ELIST.match(line)) or (m := _LIST.match(line)):
            reading, status = m["reading"], m["status"]
            v = _VALUE.match(reading)
            value, unit = (float(v["v"]), v["unit"]) if v and v["unit"] else (None, None)
        elif (m := _SENSOR.match(line)) is not None:
            unit = m["unit"] or None
            value = _number(m["value"])
            status = m["status"] if unit != "discrete" else ("ok" if m["value"] != "na" else "ns")
            if status not in _LEVELS:
                continue
            reading = f"{m['value']} {unit}" if unit and unit != "discrete" else m["value"]
            thresholds = [t.strip() for t in m["t"].split("|")]
            if unit == "discrete":
                value = None
        else:
            continue
        b.add(IpmiSensorReading, n, name=m["name"].strip(), value=value, unit=unit, reading=reading, status=status,
              level=_LEVELS[status], measure=_measure(unit, status),
              lower_critical=_number(thresholds[1]) if len(thresholds) == 6 else None,
              upper_critical=_number(thresholds[4]) if len(thresholds) == 6 else None)
        result.lines_used += 1
    return result


#: the line signatures this reader owns (facts/classify.py matches all readers' in one pass)
SIGNATURES = (_DETECT,)

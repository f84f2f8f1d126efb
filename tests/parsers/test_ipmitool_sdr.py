"""ipmitool sdr list / sdr elist / sensor: real tables from public threads and rows in
ipmitool's own formats (lib/ipmi_sdr.c, lib/ipmi_sensor.c); a status is judged only where
ipmitool derived it from thresholds."""
from __future__ import annotations

import pytest

from parse_helper import parse_fixture
from stethoscope.facts.parsers import ipmitool_sdr


def test_real_sdr_list_broken_fans():
    r = parse_fixture(ipmitool_sdr, "ipmitool_sdr/hass52_sdr_list_full_fans_cr.txt")
    assert r.lines_used == 17
    bad = [(f.name, f.value, f.unit, f.level, f.measure) for f in r.facts if f.level != "ok"]
    assert bad == [("Fan3B", 0.0, "RPM", "critical", "fan"), ("Fan4B", 0.0, "RPM", "critical", "fan")]
    assert {f.measure for f in r.facts} == {"fan", "temperature", "electrical"}
    assert r.facts[5].evidence.text == "Fan3B            | 0 RPM             | cr"


def test_real_sdr_elist_disabled_and_discrete():
    r = parse_fixture(ipmitool_sdr, "ipmitool_sdr/dell36_sdr_elist_all.txt")
    assert r.lines_used == 24
    amb = [f for f in r.facts if f.reading == "19 degrees C"]
    assert [(f.name, f.value, f.measure, f.level) for f in amb] == [("Ambient Temp", 19.0, "temperature", "ok")]
    assert {f.level for f in r.facts} == {"ok", "no_reading"}


def test_real_sdr_list_no_reading():
    r = parse_fixture(ipmitool_sdr, "ipmitool_sdr/hass22_sdr_list_full_ok_no_reading.txt")
    assert r.lines_used == 29
    nr = [f for f in r.facts if f.level == "no_reading"]
    assert len(nr) == 8 and {f.measure for f in nr} == {"unknown"}


# ipmitool sensor (lib/ipmi_sensor.c: "%-16s | %-10s | %-10s | %-6s" then six thresholds)
SENSOR = """CPU1 Temp        | 45.000     | degrees C  | ok    | na        | na        | na        | 85.000    | 90.000    | 95.000
GPU1 Temp        | 91.000     | degrees C  | ucr   | na        | na        | na        | 85.000    | 90.000    | 95.000
PS1 Status       | 0x1        | discrete   | 0x0100| na        | na        | na        | na        | na        | na
12V              | 10.200     | Volts      | lcr   | 10.270    | 10.780    | na        | na        | 12.960    | 13.280
"""


def test_sensor_table():
    r = parse_fixture(ipmitool_sdr, text=SENSOR)
    got = [(f.name, f.value, f.level, f.measure, f.lower_critical, f.upper_critical) for f in r.facts]
    assert got == [
        ("CPU1 Temp", 45.0, "ok", "temperature", None, 90.0),
        ("GPU1 Temp", 91.0, "critical", "temperature", None, 90.0),
        ("PS1 Status", None, "ok", "discrete", None, None),
        ("12V", 10.2, "critical", "electrical", 10.78, 12.96),
    ]


@pytest.mark.parametrize("text", [
    "   1 | 01/02/2024 | 10:00:00 | Power Supply PSU1_Status | Failure detected () | Asserted\n",  # the SEL
    "Fan3B            | 0 RPM             | cr\n",  # one line alone: too little to call a table
    "| GPU | Name | ok |\n| 0 | H100 | ok |\n",
])
def test_not_sdr(text):
    assert not ipmitool_sdr.detect(text)

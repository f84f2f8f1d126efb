"""ipmitool sel list / elist: real rows from public threads, and rows in ipmitool's own format
(lib/ipmi_sel.c) carrying its own event strings (include/ipmitool/ipmi_sel.h), table-driven;
deasserted events and records of normal operation are read and are no fault."""
from __future__ import annotations

import pytest

from parse_helper import parse_fixture
from stethoscope.facts.parsers import ipmitool_sel

# (row, kind, sensor_type, sensor, description, event)
ROWS = [
    # a real row (open-power/op-build#594)
    ("   1 | 01/01/2000 | 00:15:20 | System Firmware Progress #0x05 | Motherboard initialization | Asserted",
     "ipmi_sel_record", "System Firmware Progress", "#0x05", "Motherboard initialization", "boot_progress_legacy"),
    # ipmitool's format with its own strings: Power Unit offset 00 "Power off/down" (ipmi_sel.h), asserted then
    # deasserted: records
    ("   9 | 01/02/2024 | 10:07:00 | Power Unit PWR_STATUS | Power off/down | Asserted",
     "ipmi_sel_record", "Power Unit", "PWR_STATUS", "Power off/down", "power_state"),
    ("   a | 01/02/2024 | 10:07:04 | Power Unit PWR_STATUS | Power off/down | Deasserted",
     "ipmi_sel_record", "Power Unit", "PWR_STATUS", "Power off/down", "power_state"),
    # an asserted event the table does not name stays an event (never read as healthy): sensor_type_desc's
    # "Management Subsys Health", generic_event_types' "State Asserted"
    ("   b | 01/02/2024 | 10:07:19 | Management Subsys Health MGMT_HEALTH | State Asserted | Asserted",
     "ipmi_sel_event", "Management Subsys Health", "MGMT_HEALTH", "State Asserted", None),
    # ipmitool's format with its own strings (ipmi_sel_print_std_entry; sensor_specific_event_types)
    ("   1 | 01/02/2024 | 10:00:00 | Power Supply PSU1_Status | Failure detected () | Asserted",
     "ipmi_sel_event", "Power Supply", "PSU1_Status", "Failure detected", "power_supply_failure"),
    ("   2 | 01/02/2024 | 10:00:05 | Critical Interrupt PCIe_Err | Bus Uncorrectable error | Asserted",
     "ipmi_sel_event", "Critical Interrupt", "PCIe_Err", "Bus Uncorrectable error", "pcie_bus_uncorrectable"),
    ("   3 | 01/02/2024 | 10:01:00 | Temperature GPU1_Temp | Upper Critical going high | Asserted | Reading 96 > Threshold 90 degrees C",
     "ipmi_sel_event", "Temperature", "GPU1_Temp", "Upper Critical going high", "temperature_upper_critical"),
    ("  3a | 12/14/22 | 23:09:44 CET | Memory #0x88 | Correctable ECC (CPU0_G1) | Asserted",
     "ipmi_sel_event", "Memory", "#0x88", "Correctable ECC", "memory_ecc_correctable"),
    ("   5 | 01/02/2024 | 10:03:00 | Fan FAN3 | Lower Critical going low  | Asserted",
     "ipmi_sel_event", "Fan", "FAN3", "Lower Critical going low", "fan_failure"),
    ("   6 | 01/02/2024 | 10:04:00 | System Event | OEM System boot event | Asserted",
     "ipmi_sel_record", "System Event", "System Event", "OEM System boot event", "system_event_record"),
    ("   7 | 01/02/2024 | 10:05:00 | Processor CPU_CATERR | IERR | Asserted",
     "ipmi_sel_event", "Processor", "CPU_CATERR", "IERR", "processor_error"),
    ("   1 | 11/02/2014 | 21:53:48 | Event Logging Disabled #0xf6 | Log area reset/cleared | Asserted",
     "ipmi_sel_record", "Event Logging Disabled", "#0xf6", "Log area reset/cleared", "log_cleared"),
    ("   8 | 01/02/2024 | 10:06:00 | Power Supply PSU1_Status | Failure detected () | Deasserted",
     "ipmi_sel_record", "Power Supply", "PSU1_Status", "Failure detected", "power_supply_failure"),
    ("   1 |  Pre-Init  |0000000013| Power Supply PS1 Status | Failure detected | Asserted",
     "ipmi_sel_event", "Power Supply", "PS1 Status", "Failure detected", "power_supply_failure"),
]


@pytest.mark.parametrize("row,kind,sensor_type,sensor,description,event", ROWS)
def test_rows(row, kind, sensor_type, sensor, description, event):
    r = parse_fixture(ipmitool_sel, text=row + "\n")
    assert r.lines_used == 1
    (f,) = r.facts
    assert (f.kind, f.sensor_type, f.sensor, f.description, f.event) == (kind, sensor_type, sensor, description, event)
    assert f.asserted == row.rstrip().split("|")[5].strip().startswith("Asserted")
    assert f.evidence.line == 1 and f.evidence.text == row


def test_timestamp_detail_and_reading():
    r = parse_fixture(ipmitool_sel, text="  3a | 12/14/22 | 23:09:44 CET | Memory #0x88 | Correctable ECC (CPU0_G1) | Asserted\n")
    f = r.facts[0]
    assert (f.record_id, f.date, f.time, f.detail) == ("3a", "12/14/22", "23:09:44 CET", "CPU0_G1")
    r = parse_fixture(ipmitool_sel, text=ROWS[6][0] + "\n")
    assert r.facts[0].reading == "Reading 96 > Threshold 90 degrees C"


def test_real_12_hour_locale_row():
    # ipmitool 1.8.19 prints the locale's "%X %Z": in a 12-hour locale the time carries AM/PM before the zone
    # (fixture: illinois-scicomp/machine-shop-maintenance#76), a row that was skipped unread
    r = parse_fixture(ipmitool_sel, "ipmitool_sel/machineshop76_sel_12hour_bus_correctable.txt")
    (f,) = r.facts
    assert (f.kind, f.record_id, f.date, f.time) == ("ipmi_sel_event", "6a", "04/12/2024", "03:27:29 PM CDT")
    assert (f.sensor_type, f.description, f.detail, f.event) == ("Critical Interrupt", "Bus Correctable error", None,
                                                                  "pcie_bus_degraded")
    assert r.lines_used == 1
    # CONSTRUCTED: the same row in the morning, without a zone (TZ unset: "%Z" empty), still a row
    r = parse_fixture(ipmitool_sel, text="  6b | 04/13/2024 | 09:05:11 AM | Critical Interrupt | Bus Correctable error () | Asserted\n")
    assert [x.time for x in r.facts] == ["09:05:11 AM"]


def test_real_firmware_progress_log_is_all_records():
    r = parse_fixture(ipmitool_sel, "ipmitool_sel/opbuild594_sel_list_firmware_progress.txt")
    assert r.lines_used == 12 and {f.kind for f in r.facts} == {"ipmi_sel_record"}


@pytest.mark.parametrize("text", [
    "SEL has no entries\n",
    "PSU1 Status      | 0x0b              | ok\n",  # ipmitool sdr: not the SEL
    "| Asserted | nothing else\n",
])
def test_not_sel(text):
    assert not ipmitool_sel.detect(text)


# sel list -v (lib/ipmi_sel.c ipmi_sel_print_std_entry_verbose's printf strings)
VERBOSE = """SEL Record ID          : 0001
 Record Type           : 02
 Timestamp             : 01/02/2024 10:00:00
 Generator ID          : 0020
 EvM Revision          : 04
 Sensor Type           : Power Supply
 Sensor Number         : 62
 Event Type            : Sensor-specific Discrete
 Event Direction       : Assertion Event
 Event Data            : 01ffff
 Description           : Failure detected

SEL Record ID          : 0002
 Record Type           : 02
 Timestamp             : 01/02/2024 10:06:00
 Generator ID          : 0020
 EvM Revision          : 04
 Sensor Type           : Power Supply
 Sensor Number         : 62
 Event Type            : Sensor-specific Discrete
 Event Direction       : Deassertion Event
 Event Data            : 01ffff
 Description           : Failure detected
"""


def test_verbose_blocks():
    r = parse_fixture(ipmitool_sel, text=VERBOSE)
    got = [(f.kind, f.record_id, f.date, f.time, f.sensor_type, f.sensor, f.description, f.asserted, f.event, f.evidence.line)
           for f in r.facts]
    assert got == [
        ("ipmi_sel_event", "1", "01/02/2024", "10:00:00", "Power Supply", "#0x62", "Failure detected", True, "power_supply_failure", 11),
        ("ipmi_sel_record", "2", "01/02/2024", "10:06:00", "Power Supply", "#0x62", "Failure detected", False, "power_supply_failure", 23),
    ]


def test_verbose_block_lines_are_all_read():
    r = parse_fixture(ipmitool_sel, text=VERBOSE)
    assert r.lines_used == 22


# FreeIPMI's ipmi-sel (ipmi-sel/ipmi-sel.c): "ID | Date | Time | Name | Type | [State |] Event", its own
# event strings (libfreeipmi), read through the same table (thomas-krenn/check_ipmi_sensor_v3#26, #66)
def test_freeipmi_sel_real_psu_failures():
    r = parse_fixture(ipmitool_sel, "ipmitool_sel/checkipmi26_freeipmi_sel_psu_failure.txt")
    got = [(f.kind, f.record_id, f.date, f.sensor_type, f.sensor, f.description, f.event) for f in r.facts]
    assert got == [
        ("ipmi_sel_record", "1", "PostInit", "OS Boot", "Sensor #0", "C: boot completed", "os_boot"),
        ("ipmi_sel_event", "2", "PostInit", "Power Supply", "Power Supply PS2 Status", "Power Supply Failure detected", "power_supply_failure"),
        ("ipmi_sel_event", "3", "PostInit", "Power Supply", "Power Supply PS2 Status", "Power Supply Failure detected", "power_supply_failure"),
        ("ipmi_sel_event", "4", "Jul-20-2017", "Power Supply", "Power Supply PS2 Status", "Power Supply Failure detected", "power_supply_failure"),
        ("ipmi_sel_event", "5", "Jul-20-2017", "Power Supply", "Power Supply PS2 Status", "Power Supply Failure detected", "power_supply_failure"),
        ("ipmi_sel_record", "6", "Jul-20-2017", "OS Critical Stop", "Sensor #0", "OS Graceful Shutdown", "os_graceful_stop"),
    ]


def test_freeipmi_sel_intrusion_is_a_record_psu_an_event():
    r = parse_fixture(ipmitool_sel, "ipmitool_sel/checkipmi66_freeipmi_sel_intrusion_psu.txt")
    assert [(f.kind, f.event) for f in r.facts] == [
        ("ipmi_sel_record", "chassis_intrusion"), ("ipmi_sel_record", "chassis_intrusion"),
        ("ipmi_sel_event", "power_supply_failure")]


@pytest.mark.parametrize("row,kind,event", [
    # libfreeipmi's strings: the " (AC/DC)" detail cut, threshold events with " - "
    ("7    | Jan-02-2024 | 10:00:00 | PSU1 Status      | Power Supply      | Critical | Power Supply input lost (AC/DC)",
     "ipmi_sel_event", "power_supply_failure"),
    ("8    | Jan-02-2024 | 10:01:00 | GPU1 Temp        | Temperature       | Critical | Upper Critical - going high",
     "ipmi_sel_event", "temperature_upper_critical"),
    ("9    | Jan-02-2024 | 10:02:00 | FAN3             | Fan               | Critical | Lower Critical - going low",
     "ipmi_sel_event", "fan_failure"),
    # --verbose's Event Direction column: a deassertion is no fault
    ("10   | Jan-02-2024 | 10:03:00 | FAN3             | Fan               | Nominal  | Deassertion Event | Lower Critical - going low",
     "ipmi_sel_record", "fan_failure"),
    # without --output-event-state: an event the table does not name stays an event
    ("11   | Jan-02-2024 | 10:04:00 | Mgmt Health      | Management Subsystem Health | Sensor Failure",
     "ipmi_sel_event", None),
    # FreeIPMI rated it Nominal: read, no fault
    ("12   | Jan-02-2024 | 10:05:00 | Mgmt Health      | Management Subsystem Health | Nominal  | State Deasserted",
     "ipmi_sel_record", None),
])
def test_freeipmi_rows(row, kind, event):
    r = parse_fixture(ipmitool_sel, text=row + "\n")
    assert r.lines_used == 1
    (f,) = r.facts
    assert (f.kind, f.event) == (kind, event)


def test_freeipmi_header_detected():
    head = "ID   | Date        | Time     | Name       | Type              | State    | Event\n"
    assert ipmitool_sel.detect(head)
    assert ipmitool_sel.detect("ID  | Date        | Time     | Name     | Type          | Event\n".replace("ID  ", "ID   "))

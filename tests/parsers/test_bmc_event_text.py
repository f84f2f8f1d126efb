"""bmc_event_text: vendors' BMC event text (Supermicro, HPE IML and power supply status, Dell EEMI ids) on the
real pastes of fixtures/artefacts/bmc_event_text and negative rows."""
from pathlib import Path

import pytest

from stethoscope.facts.parsers import bmc_event_text
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "bmc_event_text"


def _facts(text: str):
    r = bmc_event_text.parse(Artefact(path="bmc.txt", text=text, node="gpu-n1"))
    assert not r.errors
    return r.facts


def _events(text: str):
    return [(f.event, f.sensor) for f in _facts(text) if f.kind == "ipmi_sel_event"]


@pytest.mark.parametrize("name, expected", [
    ("osm1364_supermicro_dimm_uncorrectable.txt", [("memory_ecc_uncorrectable", "P2-DIMMH2(CPU2)")]),
    ("osm962_supermicro_two_dimms.txt", [("memory_ecc_uncorrectable", "P2-DIMMA1(CPU2)"), ("memory_ecc_uncorrectable", "P2-DIMMB1(CPU2)")]),
    ("osm278_hplog_iml_machine_check.txt", [("processor_error", "Processor 1")] * 4),
    ("osm1182_ilo_iml_dimm_failure.txt", [("memory_ecc_uncorrectable", "Processor 2, DIMM 3")]),
    ("ilorest8_iml_dump_class_code.txt", [("processor_error", "Processor 1"), ("system_hardware_failure", "IML"),
                                          ("pcie_bus_uncorrectable", "IML")]),
    ("osm242_hplog_p_power_supply.txt", [("power_supply_failure", "Power supply #1")]),
    ("osm242_hpasmcli_show_powersupply.txt", [("power_supply_failure", "Power supply #1")]),
    ("infractl6282_dell_uefi0080_pcie_link_speed.txt", [("pcie_bus_degraded", "Bus:201 D:1 F:0")]),
    ("openbic454_log_util_pmic_dimm_high_temp.txt", [(None, "PMIC_ERR (DIMM A0)")]),
])
def test_real_pastes(name, expected):
    text = (FIX / name).read_text()
    assert bmc_event_text.detect(text)
    assert _events(text) == expected


def test_iml_header_gives_date_and_record():
    f = [x for x in _facts((FIX / "osm278_hplog_iml_machine_check.txt").read_text()) if x.kind == "ipmi_sel_event"][0]
    assert (f.record_id, f.date, f.time, f.sensor_type) == ("1346", "11/05/2018", "04:07", "Processor")


def test_records_are_no_fault():
    # the healthy power supply of #242, a Supermicro deassertion, an IML entry marked repaired
    text = ("Power supply #2\n\tPresent  : Yes\n\tCondition: Ok\n"
            " 2  Standard     Pwr. Supply Bay Normal     No    \n"
            "Uncorrectable ECC / other uncorrectable memory error @P2-DIMMH2(CPU2) - Deassertion\n"
            "1350 Repaired       01:53  01/16/2019 01:53  01/16/2019 0001\n"
            "LOG: Uncorrectable Machine Check Exception (Board 0, Processor 1, APIC ID 0x00000010)\n")
    facts = _facts(text)
    assert len(facts) == 4 and all(f.kind == "ipmi_sel_record" for f in facts)


def test_unmapped_forms_stay_unexplained():
    # a Dell id the table does not list, a Supermicro string of no table entry, a Critical IML entry not listed
    text = ("PWR1006: The system performance degraded.\n"
            "Processor Automatically Throttled @CPU1 - Assertion\n"
            "12 Critical       01:53  01/16/2019 01:53  01/16/2019 0001\n"
            "LOG: Some unknown firmware message\n")
    ev = [f for f in _facts(text) if f.kind == "ipmi_sel_event"]
    assert [f.event for f in ev] == [None, None, None]


def test_ambiguous_description_takes_the_location_hint():
    # "Failure detected" is listed for Power Supply and Power Unit: the location PS2 names the power supply
    assert _events("Power Supply Failure detected @PS2 - Assertion\n") == [("power_supply_failure", "PS2")]
    assert _events("Lower Critical - going low @FAN3 - Assertion\n") == [("fan_failure", "FAN3")]


def test_openbmc_sel_entry_forms():
    # CONSTRUCTED from Meta OpenBMC ipmid sel.c's standard-record line: a deassertion is a record; an IPMI offset
    # string in the platform's text maps like Supermicro's; an OEM record (MFG ID / OEM Data) is not read
    head = "ipmid: SEL Entry: FRU: 1, Record: Standard (0x02), Time: 2023-01-02 03:04:05, "
    text = (head + "Sensor: PMIC_ERR (0xB4), Event Data: (000C00) DIMM A0 High temp warning Deassertion\n"
            + head + "Sensor: PSU1_STATUS (0x51), Event Data: (01FFFF) Power Supply Failure detected Assertion\n"
            "ipmid: SEL Entry: FRU: 1, Record: OEM timestamped (0xC0), Time: 2023-01-02 03:04:05, MFG ID: 009c9c, OEM Data: (000000000000) Assertion\n")
    facts = _facts(text)
    assert [(f.kind, f.event, f.date, f.asserted) for f in facts] == [
        ("ipmi_sel_record", None, "2023-01-02", False), ("ipmi_sel_event", "power_supply_failure", "2023-01-02", True)]


def test_prose_is_not_claimed():
    assert not bmc_event_text.detect("The PSU failed yesterday; we replaced the DIMM in slot 3.\nLOG: nothing\n")

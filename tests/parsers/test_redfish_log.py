"""redfish_log: Redfish LogEntry / Event JSON as pasted (bb-Ricardo/check_redfish#4,
mrlhansen/idrac_exporter#26, ibm-openbmc/openbmc#198), cut and whole."""
import json
from pathlib import Path

from stethoscope.facts import knowledge
from stethoscope.facts.parsers import redfish_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "redfish_log"


def _parse(text: str, path: str = "log.json"):
    return redfish_log.parse(Artefact(path=path, text=text, node="gpu-n1"))


def test_idrac8_sel_cut_one_line():
    text = (FIX / "idrac8_sel_cut.json").read_text()
    assert redfish_log.detect(text)
    r = _parse(text)
    assert not r.errors
    ev = [f for f in r.facts if f.kind == "ipmi_sel_event"]
    assert [(f.event, f.description) for f in ev] == [("power_unit_redundancy_lost", "Power supply redundancy is lost.")]
    rec = {f.description: f for f in r.facts if f.kind == "ipmi_sel_record"}
    assert rec["The input power for power supply 1 has been restored."].asserted is False
    assert rec["The input power for power supply 1 has been restored."].sensor == "power supply 1"


def test_idrac8_member_lists_chassis_open_is_a_record():
    r = _parse((FIX / "idrac8_sel_member_lists.json").read_text())
    assert not r.errors
    assert not [f for f in r.facts if f.kind == "ipmi_sel_event"]
    absent = [f for f in r.facts if f.description == "Power supply 1 is absent."]
    assert absent and absent[0].asserted is False


def test_openbmc_registry_ids_whole_json():
    doc = {"@odata.type": "#LogEntryCollection.LogEntryCollection", "Members": [
        {"@odata.type": "#LogEntry.v1_9_0.LogEntry", "Created": "2024-01-02T10:00:00+00:00", "EntryType": "Event", "Id": "1",
         "Message": "Power supply PSU0 failed.", "MessageArgs": ["PSU0"], "MessageId": "OpenBMC.0.1.PowerSupplyFailed",
         "Severity": "Warning"},
        {"@odata.type": "#LogEntry.v1_9_0.LogEntry", "Created": "2024-01-02T10:05:00+00:00", "EntryType": "Event", "Id": "2",
         "Message": "Power supply PSU0 recovered.", "MessageArgs": ["PSU0"], "MessageId": "OpenBMC.0.1.PowerSupplyRecovered",
         "Severity": "OK"},
        {"@odata.type": "#LogEntry.v1_9_0.LogEntry", "Created": "2024-01-02T10:06:00+00:00", "EntryType": "Event", "Id": "3",
         "Message": "Something nobody maps.", "MessageId": "Vendor.1.0.Unknown", "Severity": "Critical"}]}
    text = json.dumps(doc, indent=2)
    r = _parse(text)
    ev = [f for f in r.facts if f.kind == "ipmi_sel_event"]
    assert [(f.event, f.sensor) for f in ev] == [("power_supply_failure", "PSU0"), (None, "Vendor.1.0.Unknown")]
    assert ev[0].evidence.line == text.splitlines().index('      "Message": "Power supply PSU0 failed.",') + 1
    assert [f.kind for f in r.facts].count("ipmi_sel_record") == 1


def test_ok_event_is_a_record_and_garbage_gives_parse_error():
    r = _parse((FIX / "openbmc_event_sse.txt").read_text(), "event.txt")
    assert [f.kind for f in r.facts] == ["ipmi_sel_record"]
    bad = _parse('{"@odata.type": "#LogEntry.v1_9_0.LogEntry", "Name": "x"}')
    assert bad.errors and "log.json:1" in str(bad.errors[0])


def test_every_mapped_event_is_in_the_sel_table():
    sel = {e.event for e in knowledge.load("ipmi_sel_events.yaml").events}
    rf = knowledge.load("redfish_message_ids.yaml")
    assert {m.event for m in rf.messages} <= sel
    assert set(rf.sensor_types.values()) >= {"Power Supply", "Temperature", "Fan"}


def test_phosphor_logging_dbus_entry_in_the_rest_view():
    """openbmc/phosphor-logging#18: the REST view of a host error entry, callout cpu1/core3."""
    text = (FIX / "phosphor_logging18_rest_entry_host_event.json").read_text()
    assert redfish_log.detect(text)
    r = _parse(text)
    assert not r.errors
    (u,) = r.facts
    assert (u.kind, u.event, u.sensor) == ("ipmi_sel_event", None, "core3")  # nobody maps it: stays unexplained
    assert u.evidence.line == 10  # the Message line
    assert (u.date, u.time) == ("2019-04-03", "09:15:10+00:00")
    # the same entry naming a power-supply fault: CONSTRUCTED substitution of an error name of
    # openpower-dbus-interfaces org/open_power/Witherspoon/Fault.errors.yaml
    psu = text.replace("org.open_power.Host.Error.Event", "org.open_power.Witherspoon.Fault.Error.PowerSupplyInputFault")
    (f,) = _parse(psu).facts
    assert (f.kind, f.event, f.sensor) == ("ipmi_sel_event", "power_supply_failure", "core3")
    resolved = psu.replace('"Resolved": false', '"Resolved": true')
    assert [x.kind for x in _parse(resolved).facts] == ["ipmi_sel_record"]
    info = psu.replace("Level.Error", "Level.Informational")
    assert [x.kind for x in _parse(info).facts] == ["ipmi_sel_record"]


def _doc_events(members):
    r = _parse(json.dumps({"@odata.type": "#LogEntryCollection.LogEntryCollection", "Members": members}))
    assert not r.errors
    return [(f.kind, f.event, f.sensor) for f in r.facts]


def test_resource_event_by_the_part_it_names():
    # DMTF ResourceEvent: "The resource property %1 has detected errors of type '%2'." (Warning); the fault by the part
    members = [
        {"@odata.type": "#LogEntry.v1_9_0.LogEntry", "Id": "1", "EntryType": "Event", "Severity": "Warning",
         "MessageId": "ResourceEvent.1.4.2.ResourceErrorsDetected", "MessageArgs": ["PSU1", "Input lost"],
         "Message": "The resource property PSU1 has detected errors of type 'Input lost'."},
        {"@odata.type": "#LogEntry.v1_9_0.LogEntry", "Id": "2", "EntryType": "Event", "Severity": "Critical",
         "MessageId": "ResourceEvent.1.0.3.ResourceStatusChangedCritical", "MessageArgs": ["/redfish/v1/Systems/system/Memory/dimm3", "Critical"],
         "Message": "The health of resource '/redfish/v1/Systems/system/Memory/dimm3' has changed to Critical."},
        # a GPU under Processors names no part kind the table keys: unexplained, never a record
        {"@odata.type": "#LogEntry.v1_9_0.LogEntry", "Id": "3", "EntryType": "Event", "Severity": "Critical",
         "MessageId": "ResourceEvent.1.4.2.ResourceStatusChangedCritical", "MessageArgs": ["/redfish/v1/Systems/HGX_Baseboard_0/Processors/GPU_SXM_3", "Critical"],
         "Message": "The health of resource '/redfish/v1/Systems/HGX_Baseboard_0/Processors/GPU_SXM_3' has changed to Critical."},
        {"@odata.type": "#LogEntry.v1_9_0.LogEntry", "Id": "4", "EntryType": "Event", "Severity": "OK",
         "MessageId": "ResourceEvent.1.4.2.ResourceErrorsCorrected", "MessageArgs": ["PSU1", "Input lost"],
         "Message": "The resource property PSU1 has corrected errors of type 'Input lost'."},
    ]
    got = _doc_events(members)
    assert got[0] == ("ipmi_sel_event", "power_supply_failure", "PSU1")
    assert got[1][:2] == ("ipmi_sel_event", "memory_ecc_uncorrectable")
    assert got[2] == ("ipmi_sel_event", None, "GPU_SXM_3")
    assert got[3][0] == "ipmi_sel_record"


def test_dell_eemi_ids_and_ilo_iml_text():
    members = [
        # iDRAC9 Lclog: "IDRAC.2.8.PSU0003"; an exporter's bare "PSU0003" (the same id)
        {"@odata.type": "#LogEntry.v1_9_0.LogEntry", "Id": "5", "EntryType": "Oem", "Severity": "Critical",
         "MessageId": "IDRAC.2.8.PSU0003", "Message": "The power input for power supply 2 is lost."},
        {"Id": "6", "Severity": "Critical", "MessageId": "MEM0001", "EntryType": "Oem",
         "Message": "Multi-bit memory errors detected on a memory device at location(s) DIMM_B2."},
        # iLO IML over Redfish: no MessageId, the description decides
        {"@odata.type": "#LogEntry.v1_0_0.LogEntry", "Id": "7", "EntryType": "Oem", "Severity": "Critical",
         "Message": "Uncorrectable PCI Express Error (Slot 3, Bus 132, Device 0, Function 0, Error status 0x00000028)"},
    ]
    got = _doc_events(members)
    assert got == [("ipmi_sel_event", "power_supply_failure", "power supply 2"),
                   ("ipmi_sel_event", "memory_ecc_uncorrectable", "DIMM_B2"),
                   ("ipmi_sel_event", "pcie_bus_uncorrectable", "Slot 3")]

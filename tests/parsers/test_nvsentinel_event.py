"""NVSentinel's node health events (real sample: fixtures/artefacts/nvsentinel_event/README.md; the other
messages verbatim as NVSentinel's own tests expect them, in the rows kubectl prints)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nvsentinel_event
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nvsentinel_event"


def _parse(text: str):
    assert nvsentinel_event.detect(text)
    res = nvsentinel_event.parse(Artefact(path="events.txt", text=text, node="n1"))
    assert not res.errors
    return res.facts


def test_real_uat_power_watch_event_is_no_fault():
    (e,) = _parse((FIX / "uat768_gpupowerwatch_none.txt").read_text())
    assert (e.kind, e.evidence.line, e.check, e.codes, e.reason, e.xid) == (
        "nvsentinel_health_event", 12, "GpuPowerWatch", "DCGM_FR_CLOCK_THROTTLE_POWER", "DCGM_FR_CLOCK_THROTTLE_POWER", None)
    assert (e.gpu, e.pci_bus_id, e.gpu_uuid, e.gpu_name) == (
        0, "0000:0f:00.0", "GPU-8598879c-4839-1709-231e-36a2b2844bca", "0000:0f:00.0")
    assert e.message == ("Detected clocks event due to power violation in GPU 0. Monitor the power conditions. "
                         "This GPU can still perform workload.")
    assert (e.action, e.fault, e.severity, e.component, e.cause) == (
        "NONE", False, "info", "power_thermal", "gpu_power_cap_throttle")


def test_describe_node_xid_condition_reads_the_xid():
    row = ("  GpuXidError          True    Mon, 02 Jun 2025 10:00:00 +0000   Mon, 02 Jun 2025 10:00:00 +0000   "
           "GpuXidErrorIsNotHealthy      ErrorCode:79 gpu:0 XID error occured Recommended Action=NODE_REBOOT;")
    (e,) = _parse(row + "\n")
    assert (e.check, e.xid, e.gpu, e.gpu_name, e.message, e.action, e.fault, e.severity, e.cause) == (
        "GpuXidError", 79, 0, "GPU 0", "XID error occured", "NODE_REBOOT", True, "critical", None)


def test_uuid_and_short_bus_id_of_an_xid_condition():
    msg = ("ErrorCode:119 GPU:0 GPU_UUID:GPU-455d8f70-2051-db6c-0430-ffc457bff834 PCI:0000:03:00 XID error occurred "
           "Recommended Action=COMPONENT_RESET;")
    (e,) = _parse(f"    message: '{msg}'\n    reason: GpuXidErrorIsNotHealthy\n    status: \"True\"\n    type: GpuXidError\n")
    assert (e.check, e.xid, e.pci_bus_id, e.gpu_uuid, e.action, e.actions) == (
        "GpuXidError", 119, "0000:03:00.0", "GPU-455d8f70-2051-db6c-0430-ffc457bff834", "COMPONENT_RESET", "RESET_GPU")


def test_two_events_of_one_condition():
    row = ("  GpuXidError   True   GpuXidErrorIsNotHealthy   "
           "ErrorCode:44 GPU:0 Recommended Action=CONTACT_SUPPORT;ErrorCode:45 GPU:0 Recommended Action=NONE;")
    got = [(e.xid, e.message, e.action, e.fault) for e in _parse(row + "\n")]
    assert got == [(44, "", "CONTACT_SUPPORT", True), (45, "", "NONE", False)]


def test_dcgm_code_of_a_node_event_with_an_unknown_action():
    row = ("2m   GpuPcieWatch   GpuPcieWatchIsNotHealthy   node/testnode   "
           "ErrorCode:DCGM_FR_PCI_REPLAY_RATE GPU:0 Pcie error on GPU 0 Recommended Action=UNKNOWN;")
    (e,) = _parse(row + "\n")
    assert (e.node, e.reason, e.component, e.cause, e.message, e.severity) == (
        "testnode", "DCGM_FR_PCI_REPLAY_RATE", "pcie", "pcie_replay_errors", "Pcie error on GPU 0", "warning")


def test_a_code_dcgm_does_not_name_takes_the_checks_meaning():
    row = ("NvswitchErrorFromKmsgWatch  True  NvswitchErrorFromKmsgWatchIsNotHealthy  "
           "ErrorCode:28002 NVSWITCH:0 Therm Warn Deactivated Recommended Action=NONE;")
    (e,) = _parse(row + "\n")
    assert (e.xid, e.gpu_name, e.component, e.cause, e.fault) == (None, "NVSwitch 0", "nvlink", "nvswitch_error", False)


def test_no_event_no_fact():
    text = "  GpuXidError   False   GpuXidErrorIsHealthy   No Health Failures\n"
    assert not nvsentinel_event.detect(text)
    assert not nvsentinel_event.parse(Artefact(path="x.txt", text=text, node="n1")).facts
    assert not nvsentinel_event.detect("Recommended Action=NONE\n")


def test_real_platform_connectors_json_events_762():
    facts = _parse((FIX / "nvsentinel762_platform_connectors_health_events.log").read_text())
    got = [(e.evidence.line, e.node, e.check, e.codes, e.xid, e.pci_bus_id, e.gpu_uuid, e.action, e.fault) for e in facts]
    assert got == [(n, "kwok-node-0", "SysLogsXIDError", "13", 13, "0002:00:00.0",
                    "GPU-22222222-2222-2222-2222-222222222222", "RESTART_VM", True) for n in (1, 2)]


def test_real_fault_quarantine_annotation_escaped_json_714():
    (e,) = _parse((FIX / "nvsentinel714_fault_quarantine_annotation.log").read_text())
    assert (e.node, e.check, e.reason, e.gpu, e.pci_bus_id, e.action, e.severity, e.cause) == (
        "n1", "GpuMemWatch", "DCGM_FR_UNCONTAINED_ERROR", 1, "0002:00:00.0", "RESTART_VM", "critical", "ecc_uncorrectable")
    assert e.message == "GPU had an uncontained error (XID 95) Drain the GPU and reset it or reboot the node."


def test_json_event_forms_and_near_misses():
    ev = ('{"checkName":"GpuThermalWatch","isFatal":false,"isHealthy":%s,"message":"m","recommendedAction":%s,'
          '"errorCode":["DCGM_FR_CLOCK_THROTTLE_THERMAL"],"entitiesImpacted":[{"entityType":"GPU","entityValue":"3"}]}')
    (e,) = _parse(ev % ("false", '"NONE"') + "\n")  # protojson writes the enum's name
    assert (e.check, e.gpu, e.action, e.fault) == ("GpuThermalWatch", 3, "NONE", False)
    (e,) = _parse(ev % ("false", "99") + "\n")
    assert (e.action, e.severity) == ("UNKNOWN", "warning")
    healthy = ev % ("true", "0") + "\n"
    assert nvsentinel_event.parse(Artefact(path="x", text=healthy, node="n1")).facts == []
    # a check name without a recommended action (a config, a rule's match) is not an event
    assert not nvsentinel_event.detect('{"checkName":"GpuXidError","isFatal":true}\n')


def test_condition_message_wrapped_over_lines_1716():
    # NVIDIA/NVSentinel#1716 (2026-09-01, GB300 node; kubectl wrapped the condition message), verbatim excerpt
    text = '''    "reason": "InfiniBandCharDeviceCheckIsNotHealthy",
    "message": "ErrorCode:issm NIC:mlx5_3 NICPort:1 Device mlx5_3 port 1: issm character device missing from /sys/class/infiniband_mad (expected for an InfiniBand-mode port). pods cannot open
  /dev/infiniband/issm* Recommended Action=REPLACE_VM;ErrorCode:issm NIC:mlx5_2 NICPort:1 Device mlx5_2 port 1: issm character device missing from /sys/class/infiniband_mad (expected for an InfiniBand-mode port).
   pods cannot open /dev/infiniband/issm* Recommended Action=REPLACE_VM;ErrorCode:issm NIC:mlx5_0 NICPort:1 Device mlx5_0 port 1: issm character device missing from /sys/class/infiniband_mad (expected for an
  InfiniBand-mode port). pods cannot open /dev/infiniband/issm* Recommended Action=R
'''
    facts = _parse(text)
    assert [(f.evidence.line, f.check, f.codes, f.action) for f in facts] == [
        (2, "InfiniBandCharDeviceCheck", "issm", "REPLACE_VM")] * 2 + [(2, "InfiniBandCharDeviceCheck", "issm", "R")]
    assert facts[0].message.endswith("pods cannot open /dev/infiniband/issm*")
    assert [(f.hca, f.port, f.gpu) for f in facts] == [("mlx5_3", 1, None), ("mlx5_2", 1, None), ("mlx5_0", 1, None)]
    assert facts[1].message.startswith("Device mlx5_2 port 1: issm character device missing")


def test_an_event_never_closed_is_not_joined_to_unrelated_lines():
    text = "ErrorCode:79 GPU:0 XID error occured Recommended Action=NODE_REBOOT;ErrorCode:44 GPU:0 cut here\n\nother text\n"
    (e,) = _parse(text)
    assert (e.evidence.line, e.codes, e.action) == (1, "79", "NODE_REBOOT")

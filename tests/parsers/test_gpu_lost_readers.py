"""NVML per-device failures (nvidia-smi's device-handle line, a tool's lost-GPU query) and
GPUd's Xid/SXid messages, on real captures and the message forms of each driver generation."""

import pytest

from stethoscope.facts.parsers import gpud_log, nvml_init
from stethoscope.facts.parsers.base import Artefact

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def _dev(f):
    return (f.evidence.line, f.reason, f.gpu, f.pci_bus_id, f.gpu_index, f.gpu_uuid, f.source, f.query)


@pytest.mark.parametrize("rel, want", [
    ("nvml_init/returnn1486_device_handle_unknown_error.txt",
     [(2, "unknown_error", "0000:03:00.0", "0000:03:00.0", None, None, "nvidia-smi", "device handle")]),
    ("nvml_init/gpud604_remapped_rows_gpu_lost.txt",
     [(1, "gpu_lost", "GPU-ac896b35-5782-c478-4b2a-a661de07770f", None, None,
       "GPU-ac896b35-5782-c478-4b2a-a661de07770f", "tool", "remapped rows")]),
])
def test_device_errors_from_real_output(rel, want):
    r = _parse(nvml_init, rel)
    assert [_dev(f) for f in r.facts if f.kind == "nvml_device_error"] == want and r.errors == []


@pytest.mark.parametrize("line, reason, gpu, index", [
    # newer drivers: index, then bus id
    ("Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error", "unknown_error", "0000:34:00.0", 1),
    ("Unable to determine the device handle for GPU 0000:05:00.0: GPU is lost.  Reboot the system to recover this GPU",
     "gpu_lost", "0000:05:00.0", None),
    ("Unable to determine the device handle for GPU 0: Unknown Error", "unknown_error", "GPU0", 0),
    ("Unable to determine the device handle for GPU 0000:3B:00.0: Unable to communicate with GPU because it is "
     "insufficiently powered.", "insufficient_power", "0000:3b:00.0", None),
])
def test_device_handle_forms(line, reason, gpu, index):
    (f,) = _parse(nvml_init, text=line + "\n").facts
    assert (f.kind, f.reason, f.gpu, f.gpu_index) == ("nvml_device_error", reason, gpu, index)


@pytest.mark.parametrize("line", [
    "failed to get clock speed for GPU-ac896b35-5782-c478-4b2a-a661de07770f: ERROR_NOT_SUPPORTED",  # a feature, no loss
    "    Retired Pages                         : Unknown Error",  # an nvidia-smi -q value
])
def test_not_a_device_loss(line):
    assert not nvml_init.detect(line) or nvml_init.parse(Artefact(path="t", text=line)).facts == []


@pytest.mark.parametrize("rel, want", [
    # T-Rex names the GPU by index before the code: a device error on GPU0, twice
    ("nvml_init/trex828_nvml_error_code_15.txt",
     [("nvml_device_error", "gpu_lost", "GPU0", 0), ("nvml_device_error", "gpu_lost", "GPU0", 0)]),
    # Claymore names no GPU: the process's NVML calls fail with GPU_IS_LOST
    ("nvml_init/claymore246_nvml_cannot_get_temperature_error_15.txt",
     [("nvml_init_failure", "gpu_lost", None, None)] * 3),
])
def test_numeric_nvml_returns_from_real_output(rel, want):
    r = _parse(nvml_init, rel)
    assert [(f.kind, f.reason, getattr(f, "gpu", None), getattr(f, "gpu_index", None)) for f in r.facts] == want
    assert r.errors == []


@pytest.mark.parametrize("line, kind, reason, gpu", [
    ("20201211 21:00:17 WARN: NVML error, code 1", "nvml_init_failure", "other", None),
    ("20220419 09:06:45 WARN: NVML error, code 12", "nvml_init_failure", "library_not_found", None),
    ("NVML: cannot get fan speed, error 999 (an internal driver error occurred)", "nvml_init_failure",
     "unknown_error", None),
    ("hwmc GPU2: unable to get fan speed - GPU is lost (15)", "nvml_device_error", "gpu_lost", "GPU2"),
    ("monitor: GPU 1 NVML error code 16", "nvml_device_error", "reset_required", "GPU1"),
])
def test_numeric_nvml_return_forms(line, kind, reason, gpu):
    (f,) = _parse(nvml_init, text=line + "\n").facts
    assert (f.kind, f.reason, getattr(f, "gpu", None)) == (kind, reason, gpu)


@pytest.mark.parametrize("line", [
    "NVML: cannot get fan speed, error 3",  # NVML_ERROR_NOT_SUPPORTED: a fan the board lacks
    "WARN: NVML: can't get power for GPU #0, error code 21",  # NVML_ERROR_NO_DATA
    "NVML Version                              : 12.535.104",  # nvidia-smi -q
    "GPU is lost (12)",  # text and number disagree
    "GPU 3, GpuMiner cu_k1 failed 30, unknown error",  # a CUDA failure, no NVML return
])
def test_numeric_nvml_near_misses(line):
    assert not nvml_init.detect(line) or nvml_init.parse(Artefact(path="t", text=line)).facts == []


@pytest.mark.parametrize("rel, want", [
    # Slurm's gpu/nvml plugin in slurmstepd: the usage query's return as a number, then nvmlErrorString; no GPU named
    ("nvml_init/plmfit40_slurmstepd_usage_gpu_lost.txt",
     [("nvml_init_failure", "gpu_lost", "slurm", "NVML: Failed to get usage(15): GPU is lost")]),
    # pynvml's exception class for NVML_ERROR_GPU_IS_LOST, the last line of a Python 2 traceback (no module prefix)
    ("nvml_init/nvgpu6_pynvml_gpu_is_lost_traceback.txt",
     [("nvml_init_failure", "gpu_lost", "pynvml", "GPU is lost")]),
])
def test_slurm_and_pynvml_returns_from_real_output(rel, want):
    r = _parse(nvml_init, rel)
    assert [(f.kind, f.reason, f.source, f.message) for f in r.facts] == want
    assert r.errors == []


@pytest.mark.parametrize("line, reason", [
    # wookayin/gpustat#90's title: Python 3 prints the module before the class
    ("Faile to run ``gpustat --debug'': pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found",
     "library_not_found"),
    ("NVMLError_GpuIsLost: GPU is lost", "gpu_lost"),  # rossumai/nvgpu#6
    ("slurmstepd: error: NVML: Failed to get usage(15): GPU is lost", "gpu_lost"),  # LSSI-ETH/plmfit#40
])
def test_slurm_and_pynvml_forms(line, reason):
    (f,) = _parse(nvml_init, text=line + "\n").facts
    assert (f.kind, f.reason) == ("nvml_init_failure", reason)


@pytest.mark.parametrize("line", [
    # pytorch/serve#1722's traceback frame: pynvml's check function, no exception class printed
    "  File \"/usr/local/lib/python3.6/dist-packages/pynvml/nvml.py\", line 1956, in nvmlDeviceGetTemperature",
    # the numeric form's near miss in Slurm's words: the text is not the code's (GPU_IS_LOST is 15)
    "slurmstepd: error: NVML: Failed to get usage(12): GPU is lost",
])
def test_slurm_and_pynvml_near_misses(line):
    assert not nvml_init.detect(line) or nvml_init.parse(Artefact(path="t", text=line)).facts == []


def test_gpud_xid_event_from_real_output():
    r = _parse(gpud_log, "gpud/gpud604_xid79_event.txt")
    assert [(f.kind, f.xid, f.pci_bus_id, f.message) for f in r.facts] == [
        ("xid_event", 79, "0000:ae:00.0", "GPU has fallen off the bus")]


@pytest.mark.parametrize("line, kind, code, dev", [
    ('        "reason": "XID 74 (NVLINK Error) detected on PCI:0000:04:00",', "xid_event", 74, "0000:04:00.0"),
    ("XID 144.3 (err status 0x00000040) NVLINK_RLW Nonfatal detected on GPU PCI:0000:04:00 UUID:GPU-ac896b35-5782-"
     "c478-4b2a-a661de07770f", "xid_event", 144, "0000:04:00.0"),
    ("SXID 123 detected on PCI:0000:9b:00", "nvswitch_sxid", 123, "0000:9b:00.0"),
])
def test_gpud_message_forms(line, kind, code, dev):
    (f,) = _parse(gpud_log, text=line + "\n").facts
    got = (f.kind, f.xid if kind == "xid_event" else f.sxid, f.pci_bus_id if kind == "xid_event" else f.switch)
    assert got == (kind, code, dev)


def test_gpud_xid_by_uuid_only_is_a_parse_error():
    r = _parse(gpud_log, text="XID 13 Graphics Engine Exception detected on GPU GPU-ac896b35-5782-c478-4b2a-a661de07770f\n")
    assert r.facts == [] and [e.line for e in r.errors] == [1]


def test_gpud_0_3_xid_message_names_no_gpu():
    # leptonai/gpud#192: the error_xid event of gpud 0.1-0.4 ("xid %d detected by %s (%s)"); the escaped
    # extra_info JSON after it ("\"xid\":119") is not a second message
    r = _parse(gpud_log, "gpud/gpud192_xid119_events_v0_3.json")
    assert [(f.evidence.line, f.kind, f.xid, f.source, f.message) for f in r.facts] == [
        (9, "gpud_xid_reported", 119, "dmesg", "xid 119 detected by dmesg (47 minutes ago)")]
    assert r.lines_used == 1 and r.errors == []
    # the state's reason of the same versions ("xid %d detected by %s"), filled in
    (f,) = _parse(gpud_log, text='        "reason": "xid 48 detected by nvml",\n').facts
    assert (f.xid, f.source, f.message) == (48, "nvml", "xid 48 detected by nvml")
    assert not gpud_log.detect("Pxid 48 detected by nvml")


def test_kernel_xid_line_is_not_gpud():
    assert not gpud_log.detect("NVRM: Xid (PCI:0000:ae:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")

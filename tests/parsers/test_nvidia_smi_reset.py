"""nvidia-smi -r / --gpu-reset output: the refusal forms of three driver generations, the
successful reset, and text that only mentions a reset."""
from pathlib import Path

import pytest

from stethoscope.facts.parsers import nvidia_smi_reset
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nvidia_smi_reset"


def _parse(text: str, path: str = "reset.txt"):
    assert nvidia_smi_reset.detect(text)
    return nvidia_smi_reset.parse(Artefact(path=path, text=text, node="n1"))


def _row(f):
    if f.kind == "gpu_reset_done":
        return (f.kind, f.evidence.line, f.pci_bus_id)
    return (f.kind, f.evidence.line, f.reason, f.pci_bus_id, f.gpu, f.clients_hint is not None)


def test_refused_then_reset_real_paste():
    r = _parse((FIX / "gpu_operator118_persistenced_blocks_reset.txt").read_text())
    assert [_row(f) for f in r.facts] == [
        ("gpu_reset_refused", 2, "in_use", "0000:c1:00.0", "0000:c1:00.0", True),
        ("gpu_reset_done", 9, "0000:c1:00.0"),
    ] and r.errors == []
    assert r.facts[0].clients_hint.startswith("Fabric Manager, CUDA application")


@pytest.mark.parametrize("text, want", [
    # R525+ form: a header, one row per GPU with NVML's error text, a count (public incident write-up)
    ("$ sudo nvidia-smi -r\nThe following GPUs could not be reset:\n  GPU 00000000:17:00.0: In use by another client\n"
     "  GPU 00000000:2A:00.0: In use by another client\n8 devices are currently being used by one or more other processes\n",
     [("gpu_reset_refused", 3, "in_use", "0000:17:00.0", "0000:17:00.0", False),
      ("gpu_reset_refused", 4, "in_use", "0000:2a:00.0", "0000:2a:00.0", False)]),
    # a row with another NVML error is read with its own reason
    ("The following GPUs could not be reset:\n  GPU 00000000:01:00.0: Not Supported\n",
     [("gpu_reset_refused", 2, "not_supported", "0000:01:00.0", "0000:01:00.0", False)]),
    # the 3xx drivers' form names no GPU
    ("Unable to reset this GPU because it's being used by some other process (e.g. CUDA application, graphics "
     "application like X server, monitoring application like other instance of nvidia-smi). Please first kill all "
     "processes using this GPU and all compute applications running in the system (even when they are running on "
     "other GPUs) and then try to reset the GPU again.\n",
     [("gpu_reset_refused", 1, "in_use", None, "this GPU", True)]),
])
def test_refusal_forms(text, want):
    r = _parse(text)
    assert [_row(f) for f in r.facts] == want and r.errors == []


def test_rows_end_at_the_next_command():
    text = ("The following GPUs could not be reset:\n  GPU 00000000:17:00.0: In use by another client\n"
            "$ nvidia-smi -q\n  GPU 00000000:17:00.0: something else\n")
    assert [f.pci_bus_id for f in _parse(text).facts] == ["0000:17:00.0"]


@pytest.mark.parametrize("text", ["", "Reset the GPU with nvidia-smi -r before the next job.\n",
                                  "GPU Reset Status\n    Reset Required : No\n"])
def test_no_reset_output_is_not_claimed(text):
    assert not nvidia_smi_reset.detect(text)


def test_in_use_row_without_its_header():
    """Issue 11, the key line alone: the refusal row pasted without 'The following GPUs could not
    be reset:' (the incident write-up's row of test_refusal_forms) is a refusal; NVML's in-use text names the table."""
    row = "  GPU 00000000:17:00.0: In use by another client\n"
    assert [_row(f) for f in _parse(row).facts] == [("gpu_reset_refused", 1, "in_use", "0000:17:00.0", "0000:17:00.0", False)]
    # near miss: another NVML error in a 'GPU <bus id>:' row is only a refusal under the header
    assert not nvidia_smi_reset.detect("  GPU 00000000:01:00.0: Not Supported\n")
    assert nvidia_smi_reset.parse(Artefact(path="r.txt", text="GPU 00000000:1A:00.0 was successfully reset.\n"
                                           "  GPU 00000000:01:00.0: Not Supported\n", node="n1")).facts[1:] == []

"""nvidia-modeset's error lines ending in a GPU-state NV_STATUS (kernel_log via kernel_log_modeset):
nvkms_log's framing (kernel-open/nvidia-modeset/nvidia-modeset-linux.c "nvidia-modeset: ERROR: GPU:%d: "),
GetChannelState's and the "0x%x (%s)" status forms, the real block of NVIDIA/open-gpu-kernel-modules#1252
(fixture), and the display's other errors and warnings that must stay unread here."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kernel_log" / "ogkm1252_modeset_reset_required.log"
PREFIXES = ("", "[ 3702.312931] ", "Sep 27 10:19:13 host kernel: ", "2026-07-21T10:00:01.123456+00:00 host kernel: ")


def _modeset(text: str):
    return [f for f in kernel_log.parse(Artefact(path="dmesg.txt", text=text, node="n1")).facts
            if f.kind == "nvrm_error" and f.message_kind == "modeset_rm_call_failed"]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "status", "code", "detail"), [
    # the real line of #1252 (0x62)
    ("nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000ca7e:0:0:0x00000062",
     "NV_ERR_RESET_REQUIRED", "0x00000062", "nvidia-modeset GPU:0"),
    # the same format with 0x0f, NV_ERR_GPU_IS_LOST, on another display class (format of nvkms-evo3.c)
    ("nvidia-modeset: ERROR: GPU:1: Failed to query display engine channel state: 0x0000c57e:4:0:0x0000000f",
     "NV_ERR_GPU_IS_LOST", "0x0000000f", "nvidia-modeset GPU:1"),
    # nvkms-evo.c's "0x%x (%s)" form, nvstatusToString's text after the value
    ("nvidia-modeset: ERROR: GPU:0: Failed to initialize display engine: 0x62 (Reset required)",
     "NV_ERR_RESET_REQUIRED", "0x00000062", "nvidia-modeset GPU:0"),
])
def test_status_forms(prefix, line, status, code, detail):
    text = prefix + line + "\n"
    assert kernel_log.detect(text)
    (f,) = _modeset(text)
    assert (f.status, f.code, f.detail, f.pci_bus_id, f.evidence.line) == (status, code, detail, None, 1)


def test_real_ogkm1252():
    text = FIXTURE.read_text()
    assert kernel_log.detect(text)
    got = _modeset(text)
    assert [f.evidence.line for f in got] == [2, 3, 4, 5]
    assert {f.status for f in got} == {"NV_ERR_RESET_REQUIRED"}


@pytest.mark.parametrize("line", [
    # the display's own failures: a status that says nothing of the GPU, no status, a warning
    "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000ca7e:0:0:0x00000057",
    "nvidia-modeset: ERROR: GPU:0: Error while waiting for GPU progress: 0x0000ca7d:0 2:0:200:192",
    "nvidia-modeset: ERROR: GPU:0: AUX read failed for DPCD addr 0x2200",
    "nvidia-modeset: WARNING: GPU:0: Lost display notification (0:0x00000000); continuing.",
    "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  595.45.04  Release Build",
])
def test_not_gpu_state_lines(line):
    assert _modeset(line + "\n") == []

"""nvidia-ctk's own log (real samples: fixtures/artefacts/nvidia_ctk/README.md; the ERRO form filled in from
nvidia-container-toolkit cmd/nvidia-ctk/cdi/generate: fmt.Errorf("failed to generate CDI spec: %v", err))."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nvidia_ctk
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nvidia_ctk"


def _parse(text: str):
    return nvidia_ctk.parse(Artefact(path="ctk.txt", text=text, node="n1"))


@pytest.mark.parametrize("name, used", [("ctk972_cdi_generate_wsl.txt", 9), ("ctk396_runtime_configure_cdi_generate.txt", 11)])
def test_real_runs_warn_only_of_what_the_host_may_lack(name, used):
    text = (FIX / name).read_text()
    assert nvidia_ctk.detect(text)
    res = _parse(text)
    assert res.facts == [] and res.errors == []
    assert res.lines_used == used  # every logrus line, and the sandboxutils error's second line; not the shell prompts


def test_error_and_unknown_warning_stay_visible():
    # nvidia-ctk's mode (#396's run), the nvidia-cdi-refresh service's error (NVIDIA/nvidia-container-toolkit#1376;
    # cmd/nvidia-ctk/cdi/generate: "invalid discovery mode: %v"), then a warning this reader does not know
    text = ("INFO[0000] Auto-detected mode as \"nvml\"\n"
            'Oct 23 10:22:21 ubuntu nvidia-ctk[64294]: time="2025-10-23T10:22:21+08:00" level=error msg="invalid discovery '
            'mode: cdi"\n'
            "WARN[0000] Failed to init nvml: ERROR_LIBRARY_NOT_FOUND\n")
    assert nvidia_ctk.detect(text)
    got = _parse(text).facts
    assert [(f.kind, f.evidence.line) for f in got] == [("container_toolkit_error", 2), ("text_error_line", 3)]
    assert got[0].stage == "nvidia-ctk" and got[0].message == "invalid discovery mode: cdi"


def test_journal_form():
    # the cdi-generator service's journal (logfmt): a benign warning, its escaped second line not split into a line
    text = ('Jun 17 21:11:58 host nvidia-ctk[6690]: time="2026-06-17T21:11:58-04:00" level=warning msg="Ignoring error in '
            'locating libnvidia-sandboxutils.so.1: libnvidia-sandboxutils.so.1: not found\\nlibnvidia-sandboxutils.so.1: not found"\n'
            'Jun 17 21:11:58 host nvidia-ctk[6690]: time="2026-06-17T21:11:58-04:00" level=error msg="failed to generate CDI spec: x"\n')
    assert nvidia_ctk.detect(text)
    assert [f.kind for f in _parse(text).facts] == ["container_toolkit_error"]


def test_not_nvidia_ctk():
    # dcgm-exporter's and other logrus programs' lines are not nvidia-ctk's
    assert not nvidia_ctk.detect('time="2020-10-27T20:31:42Z" level=fatal msg="Error watching fields: ..."\n')
    assert not nvidia_ctk.detect("WARN[0000] Skipping line 55 ('DCGM_FI_PROF_GR_ENGINE_ACTIVE'): DCP metrics not enabled\n")
    assert not nvidia_ctk.detect("")


def test_cdi_list_names_the_devices_of_the_hosts_specs():
    # nvidia-ctk cdi list pasted with the podman refusal that followed (NVIDIA/nvidia-container-toolkit#1940)
    facts = _parse((FIX / "toolkit1940_cdi_list_then_podman_unresolvable_paste.txt").read_text()).facts
    assert [(f.kind, f.evidence.line, getattr(f, "device", None)) for f in facts] == [
        ("cdi_device_listed", 5, "nvidia.com/gpu=0"),
        ("cdi_device_listed", 6, "nvidia.com/gpu=GPU-d17572cc-10a2-4a90-04a1-4ea64aac04b2"),
        ("cdi_device_listed", 7, "nvidia.com/gpu=all")]


def test_cdi_list_takes_only_the_count_it_announced():
    text = "INFO[0000] Found 1 CDI devices\nnvidia.com/gpu=0\nvendor.com/other=1\n"
    assert [f.device for f in _parse(text).facts] == ["nvidia.com/gpu=0"]

"""nvidia_vgpu_mgr_log: NVIDIA's vGPU manager daemon's error lines, on real lines."""
import pytest

from stethoscope.facts.parsers import nvidia_vgpu_mgr_log
from stethoscope.facts.parsers.base import Artefact

ROWS = [
    # (line, (source, error, status, status_name) or None for no fact)
    ("Mar 20 18:49:51 nixos nvidia-vgpu-mgr[20000]: error: vmiop_env_log: Failed to initialize RM client: 0x26",
     ("vmiop_env_log", "Failed to initialize RM client", 0x26, "NV_ERR_INVALID_DEVICE")),   # mrzenc/vgpu4nixos#4
    # a notice of the daemon's is no error (cloud-hypervisor/cloud-hypervisor#7572)
    ("Dec 19 17:09:33 staging-hypeman-0 nvidia-vgpu-mgr[119865]: notice: vmiop_env_log: vmiop-env: guest_max_gpfn:0x0", None),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    facts = nvidia_vgpu_mgr_log.parse(Artefact(path="journal.txt", text=line + "\n")).facts
    assert [(f.source, f.error, f.status, f.status_name) for f in facts] == ([want] if want else [])


def test_systemctl_status_file():
    text = open("fixtures/artefacts/nvidia_vgpu_mgr_log/vgpu4nixos4_rm_client_0x26.log").read()
    assert nvidia_vgpu_mgr_log.detect(text)
    (f,) = nvidia_vgpu_mgr_log.parse(Artefact(path="systemctl.txt", text=text)).facts
    assert f.evidence.line == 16 and f.status_name == "NV_ERR_INVALID_DEVICE"


def test_detect_wants_an_error_line():
    assert not nvidia_vgpu_mgr_log.detect(
        "Dec 19 17:09:33 staging-hypeman-0 nvidia-vgpu-mgr[119865]: notice: vmiop_env_log: vmiop-env: guest_max_gpfn:0x0\n")

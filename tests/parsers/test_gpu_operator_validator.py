"""gpu_operator_validator: the GPU operator validator's retries, one fact per failing validation."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import gpu_operator_validator as v
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/gpu_operator_validator"


def facts(text: str):
    return v.parse(Artefact(path="t.log", text=text, node="node1")).facts


def test_driver_validation_of_gpu_operator378():
    text = (FIX / "gpu_operator378_driver_validation.txt").read_text()
    assert v.detect(text)
    (f,) = facts(text)
    assert (f.evidence.line, f.validation, f.command, f.retries) == (3, "driver", "chroot [/run/nvidia/driver nvidia-smi]", 3)
    assert f.detail == "chroot: failed to run command 'nvidia-smi': No such file or directory"


# cmd/nvidia-validator/main.go's commands and log lines, as its format strings print them
@pytest.mark.parametrize("lines,validation", [
    (["running command chroot with args [/host /usr/bin/nvidia-smi]", "command failed, retrying after 5 seconds"], "driver"),
    (["running command sh with args [-c stat /run/nvidia/validations/.driver-ctr-ready]",
      "stat: cannot stat '/run/nvidia/validations/.driver-ctr-ready': No such file or directory",
      "command failed, retrying after 5 seconds"], "driver_container"),
    (["running command nvidia-smi with args []", "command failed, retrying after 5 seconds"], "toolkit"),
    (["running command sh with args [-c lsmod | grep nvidia_fs]", "command failed, retrying after 5 seconds"], "nvidia_fs"),
    (["running command sh with args [-c lsmod | grep -E '^nvidia_peermem\\s']", "command failed, retrying after 5 seconds"], "nvidia_peermem"),
    (["WARN[0005] failed to validate the driver, retrying after 5 seconds"], "driver"),
    (['time="2025-09-10T01:02:03Z" level=warning msg="failed to validate the driver, retrying after 5 seconds\\n"'], "driver"),
])
def test_each_validation_from_its_command(lines, validation):
    text = "\n".join(lines) + "\n"
    assert v.detect(text)
    assert [f.validation for f in facts(text)] == [validation]


def test_a_command_that_worked_is_no_fact():
    text = "running command chroot with args [/run/nvidia/driver nvidia-smi]\nThu Sep 16 01:12:40 2021\n"
    assert v.detect(text) and facts(text) == []

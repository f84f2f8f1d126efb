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


def test_host_probe_head_of_gpu_operator2596_is_read_no_fact():
    # NVIDIA/gpu-operator#2596 (v26.3.3): the driver-validation log as stored, cut inside the host nvidia-smi's table
    text = ('time="2026-07-03T07:54:31Z" level=info msg="version: b0a49c0e-amd64, commit: b0a49c0"\n'
            'time="2026-07-03T07:54:31Z" level=info msg="Attempting to validate a pre-installed driver on the host"\n'
            "Fri Jul  3 15:54:32 2026       \n"
            "+-----------------------------------------------------------------------------------------+\n"
            "| NVIDIA-SMI 580.159.03             Driver Version: 580.159.03     CUDA Version: 13.0     |\n")
    assert v.detect(text)
    res = v.parse(Artefact(path="t.log", text=text, node="node1"))
    assert res.facts == [] and res.lines_used == 1  # the probe line; nvidia-smi's table is not this reader's


@pytest.mark.parametrize("line,code,reason", [
    # NVIDIA/gpu-operator#2596, as the reporter quoted it
    ('the subsequent prompt reads: "No pre-installed driver detected on the host: exit status 14".', 14, "corrupted_inforom"),
    # cmd/nvidia-validator/main.go's log.Infof("No pre-installed driver detected on the host: %v", err), logrus text
    ('time="2026-07-03T07:54:33Z" level=info msg="No pre-installed driver detected on the host: exit status 9"', 9, "driver_not_loaded"),
    ('time="2026-07-03T07:54:33Z" level=info msg="No pre-installed driver detected on the host: exit status 255"', 255, "other"),
])
def test_host_probe_failed_with_nvidia_smi_return(line, code, reason):
    assert v.detect(line + "\n")
    (f,) = facts(line + "\n")
    assert (f.validation, f.command, f.exit_status, f.nvml_reason) == ("host_driver", "chroot [/host nvidia-smi]", code, reason)
    assert f.detail == f"No pre-installed driver detected on the host: exit status {code}"


def test_no_host_nvidia_smi_and_the_container_probe_lines_are_no_fact():
    # a node whose driver is the operator's container: the host probe's expected failure (gpu-operator docs' sample)
    text = ('time="2026-05-05T13:15:55Z" level=info msg="Attempting to validate a pre-installed driver on the host"\n'
            'time="2026-05-05T13:15:55Z" level=info msg="No pre-installed driver detected on the host: no \'nvidia-smi\' file present on the host: lstat /host/usr/bin/nvidia-smi: no such file or directory"\n'
            'time="2026-05-05T13:15:55Z" level=info msg="Validating containerized driver installation"\n'
            'time="2026-05-05T13:15:55Z" level=info msg="Attempting to validate a driver container installation"\n')
    assert v.detect(text)
    res = v.parse(Artefact(path="t.log", text=text, node="node1"))
    assert res.facts == [] and res.lines_used == 4


def test_gpu_operator1276_container_probe_then_retry():
    # NVIDIA/gpu-operator#1276 (v24.9.2, the lines as pasted, the \n of the format string literal)
    text = "Attempting to validate a driver container installation\nfailed to validate the driver, retrying after 5 seconds\\n\n"
    (f,) = facts(text)
    assert (f.validation, f.evidence.line, f.exit_status) == ("driver", 2, None)


def test_plugin_validation_waiting_for_gpu_resources_of_gpu_operator486():
    text = (FIX / "gpu_operator486_plugin_validation.txt").read_text()
    assert v.detect(text)
    (f,) = facts(text)
    assert (f.evidence.line, f.validation, f.retries, f.command) == (1, "gpu_resources", 30, None)
    assert "retry: 24" in f.detail


# validateGPUResource's closing error alone (CONSTRUCTED from its format string), and a validator that found them
@pytest.mark.parametrize("text,retries", [
    ('time="2026-06-15T12:46:00Z" level=info msg="GPU resources are not discovered by the node"\n', 30),
    ("GPU resources are not yet discovered by the node, retry: 3\n", 3),
])
def test_gpu_resources_forms(text, retries):
    assert v.detect(text)
    (f,) = facts(text)
    assert (f.validation, f.retries) == ("gpu_resources", retries)

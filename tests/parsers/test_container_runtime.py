"""container_runtime: docker / containerd refusing GPU containers, each form on real lines."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import container_runtime
from stethoscope.facts.parsers.base import Artefact


def parse_text(text: str):
    return container_runtime.parse(Artefact(path="docker.txt", text=text, node="node1"))


@pytest.mark.parametrize("line,reason,engine,runtime,gpu", [
    # NVIDIA/nvidia-docker#1034 (title) and with docker's prefix
    ('could not select device driver "" with capabilities: [[gpu]].', "no_gpu_device_driver", "docker", "", True),
    ('docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
     "no_gpu_device_driver", "docker", "", True),
    # NVIDIA/nvidia-container-toolkit#150; docker compose prints it without "docker: "
    ("docker: Error response from daemon: unknown or invalid runtime name: nvidia.", "unknown_runtime", "docker", "nvidia", True),
    ("Error response from daemon: unknown or invalid runtime name: nvidia", "unknown_runtime", "docker", "nvidia", True),
    # NVIDIA/nvidia-docker#578 (docker before 23)
    ("docker: Error response from daemon: Unknown runtime specified nvidia.", "unknown_runtime", "docker", "nvidia", True),
    ('Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "nvidia" is configured',
     "runtime_not_configured", "containerd", "nvidia", True),
    ("docker: Error response from daemon: unknown or invalid runtime name: runsc.", "unknown_runtime", "docker", "runsc", False),
])
def test_forms(line, reason, engine, runtime, gpu):
    assert container_runtime.detect(line)
    (f,) = parse_text(line).facts
    assert (f.reason, f.engine, f.runtime, f.gpu) == (reason, engine, runtime, gpu)


@pytest.mark.parametrize("text", [
    "",
    "Runtimes: io.containerd.runc.v2 nvidia runc",  # docker info: configured, no error
    "the plugin is configured",
])
def test_not_this_kind(text):
    assert not container_runtime.detect(text)
    assert parse_text(text).facts == []

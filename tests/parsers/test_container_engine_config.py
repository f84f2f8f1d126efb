"""dockerd's daemon.json and containerd's config.toml (real samples: fixtures/artefacts/container_engine_config/README.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import container_engine_config
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "container_engine_config"


@pytest.mark.parametrize("name, line, want", [
    ("k8sdp52_daemon_json_default_runtime_nvidia.json", 8,
     {"engine": "docker", "nvidia_runtime": True, "default_runtime": "nvidia", "nvidia_default": True, "cdi_enabled": None}),
    # registered, not the default: dockerd's default stays runc (cited at the runtime's line)
    ("cns6_daemon_json_nvidia_not_default.json", 3,
     {"engine": "docker", "nvidia_runtime": True, "default_runtime": None, "nvidia_default": False}),
    ("k8sdp406_containerd_v1_config_toml.txt", 12,
     {"engine": "containerd", "nvidia_runtime": True, "default_runtime": None, "nvidia_default": False}),
])
def test_real_configs(name, line, want):
    text = (FIX / name).read_text()
    assert container_engine_config.detect(text)
    res = container_engine_config.parse(Artefact(path=name, text=text, node="n1"))
    assert not res.errors
    [f] = res.facts
    assert f.evidence.line == line
    for k, v in want.items():
        assert getattr(f, k) == v, k


def test_containerd_v2_default_nvidia_and_cdi():
    # the form nvidia-ctk runtime configure --runtime=containerd --set-as-default writes (a v2 config; CONSTRUCTED from its keys)
    text = ('version = 2\n[plugins."io.containerd.grpc.v1.cri"]\n  enable_cdi = true\n'
            '  [plugins."io.containerd.grpc.v1.cri".containerd]\n    default_runtime_name = "nvidia"\n'
            '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
            '      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]\n'
            '        BinaryName = "/usr/bin/nvidia-container-runtime"\n')
    [f] = container_engine_config.parse(Artefact(path="c", text=text, node="n1")).facts
    assert (f.engine, f.default_runtime, f.nvidia_default, f.cdi_enabled, f.evidence.line) == ("containerd", "nvidia", True, True, 5)


def test_a_json_without_runtimes_is_not_this_kind():
    assert not container_engine_config.detect('{"log-driver": "json-file", "registry-mirrors": ["https://x"]}\n')

"""A container engine's configuration: dockerd's ``/etc/docker/daemon.json`` and containerd's
``/etc/containerd/config.toml`` (k3s: ``/var/lib/rancher/k3s/agent/etc/containerd/config.toml``), as operators
paste them beside a GPU container or device plugin that gets no driver.

The NVIDIA Container Toolkit registers its runtime there (``nvidia-ctk runtime configure``); a GPU container gets
the driver only through it: asked for (``docker run --gpus``/``--runtime=nvidia``, a pod's RuntimeClass) or as
the engine's default runtime, which a Kubernetes device plugin's pod relies on unless it names a RuntimeClass.
Sample content (real: NVIDIA/k8s-device-plugin#52, a CPU node's daemon.json; NVIDIA/cloud-native-stack#6, the
nvidia runtime registered and not the default, pasted inside backticks; NVIDIA/k8s-device-plugin#406, k3s's
containerd, a v1 config)::

    {
        "runtimes": {
            "nvidia": {
                "path": "/usr/bin/nvidia-container-runtime",
                "runtimeArgs": []
            }
        },
        "default-runtime": "nvidia",

        [plugins.cri.containerd.runtimes.nvidia]
          runtime_type = "io.containerd.runc.v2"
            BinaryName = "/usr/bin/nvidia-container-runtime"

Facts: one ``container_engine_config`` per file (``engine``, ``nvidia_runtime``, ``default_runtime``,
``nvidia_default``, ``cdi_enabled``), cited at its default-runtime line, else the NVIDIA runtime's. A state:
rules judge it with what failed. A file that names no runtime: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import ContainerEngineConfig  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "container_engine_config"

# daemon.json (moby daemon/config: "default-runtime", "runtimes": {"<name>": {"path": ..., "runtimeArgs": [...]}},
# "features": {"cdi": true}):
#     "default-runtime": "nvidia",
#             "path": "/usr/bin/nvidia-container-runtime",
_DOCKER_DEFAULT = re.compile(r'"default-runtime"\s*:\s*"(?P<rt>[^"\n]{1,100})"')
_DOCKER_RUNTIME = re.compile(r'"(?P<name>[\w.-]{1,60})"\s*:\s*\{\s*"path"\s*:\s*"(?P<path>[^"\n]{1,300})"')
_DOCKER_CDI = re.compile(r'"cdi"\s*:\s*(?P<on>true|false)')
# config.toml (containerd 1.x v1/v2 and 2.x v3 CRI plugin: default_runtime_name, runtimes.<name> tables, BinaryName,
# enable_cdi):
#     [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]          (v2)
#     [plugins.cri.containerd.runtimes.nvidia]                                    (v1: NVIDIA/k8s-device-plugin#406)
#     [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia]         (v3)
#         BinaryName = "/usr/bin/nvidia-container-runtime"
#       default_runtime_name = "nvidia"
_TOML_TABLE = re.compile(r'^\s*\[plugins\.[^\]\n]*\.runtimes\.["\']?(?P<name>[\w.-]{1,60})["\']?\]\s*$', re.M)
_TOML_BINARY = re.compile(r'^\s*BinaryName\s*=\s*["\'](?P<path>[^"\'\n]{1,300})["\']', re.M)
_TOML_DEFAULT = re.compile(r'^\s*default_runtime_name\s*=\s*["\'](?P<rt>[^"\'\n]{1,100})["\']', re.M)
_TOML_CDI = re.compile(r'^\s*enable_cdi\s*=\s*(?P<on>true|false)', re.M)
_NVIDIA = re.compile(r"nvidia-container-runtime|nvidia-cdi|^nvidia")
_SIGNATURE = re.compile(r'"default-runtime"\s*:|"runtimes"\s*:\s*\{|^\s*default_runtime_name\s*=|^\s*\[plugins\.[^\]\n]*\.runtimes\.', re.M)


def detect(head: str) -> bool:
    if "runtime" not in head:
        return False
    if _TOML_TABLE.search(head) is not None or _TOML_DEFAULT.search(head) is not None:
        return True
    return _DOCKER_DEFAULT.search(head) is not None or ('"runtimes"' in head and _DOCKER_RUNTIME.search(head) is not None)


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = "\n".join(artefact.lines)
    if _TOML_TABLE.search(text) or _TOML_DEFAULT.search(text):
        engine = "containerd"
        tables = list(_TOML_TABLE.finditer(text))
        binaries = list(_TOML_BINARY.finditer(text))
        nvidia = [m for m in tables if _NVIDIA.search(m["name"])] + [m for m in binaries if _NVIDIA.search(m["path"])]
        default, cdi = _TOML_DEFAULT.search(text), _TOML_CDI.search(text)
    else:
        engine = "docker"
        nvidia = [m for m in _DOCKER_RUNTIME.finditer(text) if _NVIDIA.search(m["name"]) or _NVIDIA.search(m["path"])]
        default, cdi = _DOCKER_DEFAULT.search(text), _DOCKER_CDI.search(text)
    if default is None and not nvidia:
        return result
    rt = default["rt"] if default is not None else None
    nvidia_names = {m["name"] for m in nvidia if "name" in m.re.groupindex}
    at = default.start() if default is not None else min(m.start() for m in nvidia)
    b.add(ContainerEngineConfig, _line(text, at), engine=engine, nvidia_runtime=bool(nvidia), default_runtime=rt,
          nvidia_default=rt is not None and (rt in nvidia_names or _NVIDIA.search(rt) is not None),
          cdi_enabled=(cdi["on"] == "true") if cdi is not None else None)
    result.lines_used += sum(1 for line in artefact.lines if line.strip())
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_SIGNATURE,)

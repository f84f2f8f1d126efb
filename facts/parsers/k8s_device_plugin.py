"""NVIDIA k8s-device-plugin logs (``kubectl logs nvidia-device-plugin-daemonset-...``).

Sample content: v0.16+ (klog prefix; NVIDIA/k8s-device-plugin#1220, and a capture quoted in a
public notes page) and v0.6-era (Go ``log`` prefix; NVIDIA/k8s-device-plugin#170, #182)::

    E0402 22:17:31.198643       1 factory.go:112] Incompatible strategy detected auto
    E0402 22:17:31.198657       1 factory.go:113] If this is a GPU node, did you configure the NVIDIA Container Toolkit?
    I1106 09:17:18.873686 main.go:381] No devices found. Waiting indefinitely.

    2020/05/14 02:11:19 Loading NVML
    2020/05/14 02:11:19 Failed to initialize NVML: could not load NVML library.
    2020/05/14 02:11:19 If this is a GPU node, did you set the docker default runtime to `nvidia`?
    2020/05/14 02:11:19 You can check the prerequisites at: https://github.com/NVIDIA/k8s-device-plugin#prerequisites

The NVML line itself is :mod:`nvml_init`'s. Facts emitted here: ``device_plugin_state`` for
``Incompatible strategy detected <strategy>`` (the plugin found neither NVML nor a Tegra
system: the container runtime did not give it the driver) and ``No devices found. Waiting
indefinitely.`` (it registers no GPU and idles instead of crashing). The plugin's hint lines
(``If this is a GPU node ...``, ``You can check the prerequisites ...``) and ``Loading NVML``
are read as used, with no fact. Other plugin lines are left unread.
"""
from __future__ import annotations

import re
from typing import Literal

from stethoscope.facts.model import Fact, fact_kind
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "k8s_device_plugin"

# E0402 22:17:31.198643       1 factory.go:112] Incompatible strategy detected auto
_STRATEGY = re.compile(r"Incompatible strategy detected (?P<strategy>\S+)")
# I1106 09:17:18.873686 main.go:381] No devices found. Waiting indefinitely.
_NO_DEVICES = re.compile(r"No devices found\. Waiting indefinitely")
# If this is a GPU node, did you set the docker default runtime to `nvidia`?
# If this is a GPU node, did you configure the NVIDIA Container Toolkit?
# You can check the prerequisites at: https://github.com/NVIDIA/k8s-device-plugin#prerequisites
# You can learn how to set the runtime at: https://github.com/NVIDIA/k8s-device-plugin#quick-start
# 2020/05/14 02:11:19 Loading NVML
_HINT = re.compile(r"If this is a GPU node, did you|You can (?:check the prerequisites|learn how to set the runtime) at: "
                   r"\S*k8s-device-plugin|\d\d:\d\d:\d\d(?:\.\d+)? Loading NVML\s*$")
_ANY = re.compile(f"{_STRATEGY.pattern}|{_NO_DEVICES.pattern}|{_HINT.pattern}", re.M)


@fact_kind
class DevicePluginState(Fact):
    """The device plugin registered no GPU: ``incompatible_strategy`` or ``no_devices``."""

    kind: Literal["device_plugin_state"] = "device_plugin_state"
    state: str  # incompatible_strategy | no_devices
    strategy: str | None = None  # "auto" (deviceDiscoveryStrategy)


def detect(head: str) -> bool:
    if not ("Incompatible strategy" in head or "Waiting indefinitely" in head or "If this is a GPU node" in head):
        return False
    return _ANY.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if (m := _STRATEGY.search(line)) is not None:
            b.add(DevicePluginState, n, state="incompatible_strategy", strategy=m["strategy"])
        elif _NO_DEVICES.search(line):
            b.add(DevicePluginState, n, state="no_devices")
        elif not _HINT.search(line):
            continue
        result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_ANY,)

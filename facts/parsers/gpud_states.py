"""GPUd (leptonai/gpud) health states: ``curl https://localhost:15132/v1/states`` (or ``gpud
status``'s JSON), one object per component with the states its checker reports.

The shape (api/v1/types.go ``ComponentHealthStates`` / ``HealthState``, Go's JSON field order)::

    {"component": "accelerator-nvidia-error-xid",
     "states": [{"time": ..., "component": ..., "name": "error_xid", "health": "Unhealthy",
                 "reason": "XID 48 (Double Bit ECC Error) detected on GPU PCI:0000:6b:00 UUID:GPU-...",
                 "error": ..., "suggested_actions": {...}, "extra_info": {...}}]}

``health`` is one of ``HealthStateType``: Healthy, Unhealthy, Degraded ("similar to Unhealthy ...
but the issue detected does not affect users' workload"), Initializing (gpud 0.4+; 0.4 also wrote
``"healthy": true``; before 0.4 only ``"healthy"``, omitted when false, so that form is not read:
an unhealthy state of it cannot be told). Sample content (leptonai/gpud#1072; harvest case 1203:
gpud#1106)::

       "component":"accelerator-nvidia-error-xid",
             "health":"Unhealthy",
             "reason":"XID 48 (Double Bit ECC Error) detected on GPU PCI:0000:6b:00 UUID:GPU-c44c6e5f-...",

Pretty-printed (``| jq``) and compact JSON are read alike, by key in order, so a paste cut
mid-document is read up to where it stops; keys inside ``extra_info``'s escaped JSON string
(``\\"health\\"``) are not keys of the state.

Facts, per state, on its ``health`` line: ``gpud_unhealthy_state`` (Unhealthy, Degraded: an error,
with gpud's reason and error), ``gpud_health_state`` (Healthy, the check ran),
``gpud_health_unchecked`` (Initializing, or Healthy with a reason that says the check was skipped:
gpud reports "NVSwitch not detected, skipping fabric state check", "NVIDIA NVML library is not
loaded", "no data yet" as Healthy). ``checks`` names what gpud's component watches in the
taxonomy's words, from gpud's component names (components/*/component.go ``Name``, 0.4 to 0.13):
None for a component this table does not know (a custom plugin), whose unhealthy state then stays
unexplained. gpud's Xid/SXid reasons are also :mod:`gpud_log`'s. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.dcgm import GpudHealthState, GpudHealthUnchecked, GpudUnhealthyState  # noqa: F401
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "gpud_states"

# "component":"accelerator-nvidia-error-xid",      "health": "Unhealthy",      "reason":"XID 48 (...) detected on GPU ..."
# (not preceded by a backslash: the escaped JSON inside extra_info's "data" string is not the state's)
_KEY = re.compile(r'(?<!\\)"(?P<key>component|name|health|reason|error)"\s*:\s*"(?P<val>(?:[^"\\\n]|\\.){0,4000})"')
_HEALTH = r'"health": ?"(?:Healthy|Unhealthy|Degraded|Initializing)"'
_DETECT = re.compile(_HEALTH)
# the reasons gpud gives a check that did not run (components/*/component.go)
SKIPPED = re.compile(r"\bskipp(?:ing|ed)\b|\bnot (?:loaded|detected)\b|\bis nil\b|^no data yet\b|\bnot supported\b", re.I)

#: gpud component name -> the taxonomy component it watches (components/*/component.go, v0.4.0 .. v0.13)
CHECKS = {
    "accelerator-nvidia-error-xid": "gpu", "accelerator-nvidia-error": "gpu", "accelerator-nvidia-gpu-counts": "gpu",
    "accelerator-nvidia-processes": "gpu", "accelerator-nvidia-utilization": "gpu", "accelerator-nvidia-gpm": "gpu",
    "accelerator-nvidia-gsp-firmware": "gpu", "accelerator-nvidia-info": "gpu",
    "accelerator-nvidia-ecc": "gpu_memory", "accelerator-nvidia-remapped-rows": "gpu_memory", "accelerator-nvidia-memory": "gpu_memory",
    "accelerator-nvidia-temperature": "power_thermal", "accelerator-nvidia-power": "power_thermal",
    "accelerator-nvidia-hw-slowdown": "power_thermal", "accelerator-nvidia-clock-speed": "power_thermal",
    "accelerator-nvidia-nvlink": "nvlink", "accelerator-nvidia-fabric-manager": "nvlink", "accelerator-nvidia-error-sxid": "nvlink",
    "accelerator-nvidia-infiniband": "network", "accelerator-nvidia-peermem": "network", "network-latency": "network",
    "accelerator-nvidia-nccl": "nccl",
    "accelerator-nvidia-persistence-mode": "driver", "accelerator-nvidia-bad-envs": "driver", "library": "driver",
    "kernel-module": "host", "cpu": "host", "memory": "host", "os": "host", "containerd": "host", "docker": "host",
    "kubelet": "host", "fuse": "host", "file-descriptor": "host", "systemd": "host", "power-supply": "host",
    "pci": "pcie", "disk": "storage", "nfs": "storage",
}


def detect(head: str) -> bool:
    if '"health"' not in head or '"component"' not in head:
        return False
    return _DETECT.search(head) is not None


def _unescape(v: str) -> str:
    return v.replace('\\"', '"').replace("\\\\", "\\")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = artefact.text
    if '"health"' not in text:
        return result
    keys: dict[str, str | None] = {"component": None, "name": None}
    state: dict | None = None  # the state whose health was read, until the next state starts

    def flush() -> None:
        if state is None:
            return
        comp, health, reason = state["component"], state["health"], state.get("reason")
        fields = {"component": comp, "state_name": state["name"], "reason": reason}
        if health in ("Unhealthy", "Degraded"):
            why = reason or state.get("error") or health
            b.add(GpudUnhealthyState, state["line"], health=health, error=state.get("error"), checks=CHECKS.get(comp or ""),
                  message=f"{comp or 'gpud'}: {why}", **fields)
        elif health == "Initializing" or (reason and SKIPPED.search(reason)):
            b.add(GpudHealthUnchecked, state["line"], health=health, **fields)
        else:
            b.add(GpudHealthState, state["line"], checks=CHECKS.get(comp or ""), **fields)
        result.lines_used += 1

    for m in _KEY.finditer(text):
        key, val = m["key"], _unescape(m["val"])
        if key == "health":
            flush()
            state = {"component": keys["component"], "name": keys["name"], "health": val, "line": artefact.line_of(m.start())}
        elif key in ("reason", "error"):
            if state is not None and key not in state:
                state[key] = val
        else:  # a new component or state name: what follows belongs to it
            if state is not None and key == "component" and keys["component"] != val:
                flush()
                state = None
            keys[key] = val
    flush()
    return result


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)

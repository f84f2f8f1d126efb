"""The compute burn and copy-bandwidth probe of ``steth patrol`` (facts/torch_probe.py).

Command: ``python3 torch_probe.py burn --seconds 20`` / ``python3 torch_probe.py copy``, run by
``steth patrol run`` with the host's PyTorch when there is no gpu-burn / nvbandwidth.

Sample content (the device machine's H200, fixtures/observations/device-h200-patrol/runs/)::

    steth-probe v1 context torch=2.11.0+cu130 cuda=13.0 nccl=2.28.9 gpus=1
    steth-probe v1 gpu index=0 name="NVIDIA H200" pci_bus_id=0000:00:06.0 sm=132 memory_mib=143155
    steth-probe v1 burn gpu=0 dtype=bf16 n=8192 seconds=10.0 iterations=4920 tflops=540.0 mismatches=0
    steth-probe v1 copy gpu=0 peer=0 direction=d2d bytes=1073741824 repeats=20 seconds=0.0101 gbps=4255.6

Facts emitted: ``probe_context`` (PyTorch, CUDA runtime and NCCL versions, GPUs seen),
``probe_gpu`` per GPU, ``probe_burn`` per GPU and dtype (TFLOP/s, result mismatches),
``probe_compute_mismatch`` (an error: a burn whose products differed from the first one),
``probe_copy`` per GPU and direction (GB/s), ``probe_error`` (a stage that raised, with the
message), ``probe_unavailable`` (no PyTorch or no CUDA GPU: nothing was measured). A probe
line whose fields are missing or not numbers is a parse error. Empty input yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.steth import (  # noqa: F401 - the fact classes live in facts/kinds
    ProbeBurn, ProbeComputeMismatch, ProbeContext, ProbeCopy, ProbeError, ProbeGpu, ProbeUnavailable,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "steth_probe"

# steth-probe v1 burn gpu=0 dtype=bf16 n=8192 seconds=10.0 iterations=4920 tflops=540.0 mismatches=0
LINE = re.compile(r"^steth-probe v1 (?P<what>[a-z_]+)(?P<rest>(?: \S.*)?)$", re.M)
# name="NVIDIA H200"   /   gbps=4255.6
FIELD = re.compile(r'(?P<key>[a-z_]+)=(?:"(?P<quoted>[^"]*)"|(?P<bare>\S+))')


_INT = ("gpus", "index", "sm", "memory_mib", "gpu", "n", "iterations", "mismatches", "peer", "bytes", "repeats")
_FLOAT = ("seconds", "tflops", "gbps")
_NEEDS = {
    "context": ("torch", "gpus"), "gpu": ("index", "name"), "unavailable": ("reason",),
    "burn": ("gpu", "dtype", "n", "seconds", "iterations", "tflops", "mismatches"),
    "copy": ("gpu", "peer", "direction", "bytes", "repeats", "seconds", "gbps"),
    "error": ("stage", "message"),
}


def _fields(rest: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for m in FIELD.finditer(rest):
        key, value = m["key"], m["quoted"] if m["quoted"] is not None else m["bare"]
        if key in _INT:
            out[key] = int(value)
        elif key in _FLOAT:
            out[key] = float(value)
        else:
            out[key] = value
    return out


def detect(text: str) -> bool:
    return "steth-probe v1 " in text and any(LINE.match(ln) for ln in text.splitlines())


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    bus: dict[int, str | None] = {}
    for n, line in enumerate(artefact.lines, 1):
        m = LINE.match(line)
        if m is None:
            continue
        what = m["what"]
        if what not in _NEEDS:
            b.error(n, f"unknown steth-probe line {what!r}")
            continue
        try:
            f = _fields(m["rest"])
        except ValueError as exc:
            b.error(n, f"steth-probe {what} line with a field that is not a number: {exc}")
            continue
        missing = [k for k in _NEEDS[what] if k not in f]
        if missing:
            b.error(n, f"steth-probe {what} line without {', '.join(missing)}")
            continue
        result.lines_used += 1
        if what == "context":
            b.add(ProbeContext, n, torch=f["torch"], cuda=_none(f.get("cuda")), nccl=_none(f.get("nccl")), gpus=f["gpus"])
        elif what == "gpu":
            bus[f["index"]] = try_pci_bus_id(str(f.get("pci_bus_id") or ""))
            b.add(ProbeGpu, n, gpu=f["index"], name=f["name"], pci_bus_id=bus[f["index"]], sm=f.get("sm"),
                  memory_mib=f.get("memory_mib"))
        elif what == "burn":
            b.add(ProbeBurn, n, pci_bus_id=bus.get(f["gpu"]), **{k: f[k] for k in _NEEDS["burn"]})
            if f["mismatches"] > 0:
                b.add(ProbeComputeMismatch, n, gpu=f["gpu"], pci_bus_id=bus.get(f["gpu"]), dtype=f["dtype"],
                      mismatches=f["mismatches"], iterations=f["iterations"])
        elif what == "copy":
            if f["direction"] not in ("d2d", "h2d", "d2h", "p2p"):
                b.error(n, f"steth-probe copy direction {f['direction']!r} is none of d2d, h2d, d2h, p2p")
                result.lines_used -= 1
                continue
            b.add(ProbeCopy, n, pci_bus_id=bus.get(f["gpu"]), peer_access=f.get("peer_access", "yes") != "no",
                  **{k: f[k] for k in _NEEDS["copy"]})
        elif what == "error":
            b.add(ProbeError, n, gpu=f.get("gpu"), stage=f["stage"], message=f["message"])
        else:
            b.add(ProbeUnavailable, n, reason=f["reason"])
    return result


def _none(value: object) -> str | None:
    return None if value in (None, "none") else str(value)


#: the line signatures this reader owns (facts/classify.py matches every reader's in one pass)
SIGNATURES = (LINE,)

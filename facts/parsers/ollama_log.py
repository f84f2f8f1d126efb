"""Ollama server log (``ollama serve``, ``journalctl -u ollama``): Go ``log/slog`` text lines.

Made by ``ollama serve 2>&1 | tee ollama.log`` or ``journalctl -u ollama --no-pager``. Every line
is ``time=... level=LEVEL source=FILE.go:LINE msg=...`` followed by ``key=value`` pairs, as Go's
slog TextHandler writes them (journald may put its own prefix in front). Sample content (real,
ollama#12136 after the fix, ollama#11676's docker logs)::

    time=2025-11-12T03:10:56.706Z level=INFO source=runner.go:67 msg="discovering available GPUs..."
    time=2025-11-12T03:11:01.218Z level=INFO source=types.go:42 msg="inference compute" id=GPU-cdf3c132-675f-077e-3bf7-99d79213d062 filter_id="" library=CUDA compute=9.0 name=CUDA0 description="NVIDIA H100 80GB HBM3" libdirs=ollama driver=12.9 pci_id=0000:19:00.0 type=discrete total="79.6 GiB" available="79.2 GiB"
    time=2025-08-14T06:57:20.494Z level=INFO source=images.go:477 msg="total blobs: 66"

Facts: ``ollama_gpu`` for each ``inference compute`` line (a GPU the server will use: its
UUID, bus id where printed, product name, compute capability, and ``driver_cuda``: the CUDA
version the driver supports, as ollama reads it from ``cuDriverGetVersion``);
``ollama_log_error`` for each ``level=ERROR`` line (its ``msg``), so that a failure ollama
logged is never read as nothing. CUDA errors quoted in any line are :mod:`cuda_app`'s.
Other lines (configuration, model loading, requests) are recognised and counted, not facts.
Empty input, or text without slog lines with a ``source=*.go`` key, is not this kind.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.app import (  # noqa: F401 - the fact classes live in facts/kinds
    OllamaGpu, OllamaLogError,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "ollama_log"

# time=2025-11-12T03:10:56.706Z level=INFO source=runner.go:67 msg="discovering available GPUs..."
# time=2025-08-14T06:57:20.494Z level=INFO source=images.go:477 msg="total blobs: 66"   (ollama#11676; a journald prefix in front is read the same)
_SLOG = re.compile(r"\blevel=(?P<level>DEBUG|INFO|WARN|ERROR)(?:[+-]\d+)? source=\S+\.go:\d+ msg=(?P<rest>.*)$")
# key=value or key="quoted value" (slog quotes values with spaces, '=' or quotes)
_PAIR = re.compile(r'(?P<key>[\w.]+)=(?P<value>"(?:[^"\\]|\\.)*"|\S*)')
_DETECT = re.compile(r"\blevel=(?:DEBUG|INFO|WARN|ERROR) source=\S+\.go:\d+ msg=")
#: line signatures for facts/classify.py (one of them occurs in every text detect accepts)
SIGNATURES = (_DETECT,)


def detect(text: str) -> bool:
    if "source=" not in text or "level=" not in text:
        return False
    return _DETECT.search(text) is not None


def pairs(rest: str) -> tuple[str, dict[str, str]]:
    """(msg, the key=value pairs after it) of the text after ``msg=``."""
    out: dict[str, str] = {}
    msg = ""
    for i, m in enumerate(_PAIR.finditer("msg=" + rest)):
        value = m["value"]
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            value = value[1:-1].replace('\\"', '"')
        if i == 0:
            msg = value
        else:
            out[m["key"]] = value
    return msg, out


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if "source=" not in line or (m := _SLOG.search(line)) is None:
            continue
        result.lines_used += 1
        msg, kv = pairs(m["rest"])
        if msg == "inference compute":
            bus = kv.get("pci_id")
            b.add(OllamaGpu, n, gpu_uuid=kv.get("id") or None,
                  pci_bus_id=try_pci_bus_id(bus) if bus else None,
                  name=kv.get("description") or kv.get("name") or None, library=kv.get("library") or None,
                  compute=kv.get("compute") or None, driver_cuda=kv.get("driver") or None)
        elif m["level"] == "ERROR":
            err = kv.get("error")
            b.add(OllamaLogError, n, message=(f"{msg}: {err}" if err else msg)[:300])
    return result

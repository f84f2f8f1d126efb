"""XLA's own consistency checks that failed (``RET_CHECK``), in a JAX or TensorFlow program's output.

XLA checks its assumptions with ``TF_RET_CHECK`` / ``RET_CHECK`` (xla/status_macros.h); a check that does
not hold returns an INTERNAL status whose text xla/status_macros.cc builds
(``MakeErrorStream::add_ret_check_failure``) and logs at ERROR before JAX raises it as ``XlaRuntimeError:
INTERNAL: ...``::

    "RET_CHECK failure (" << file << ":" << line << ") " << condition << " "   [then the check's own message]

Sample content (real line, jax-ml/jax#11882: ``jax_cuda_visible_devices`` with several processes, which XLA's
``BuildDistributedDevices`` did not handle)::

    2022-08-11 15:24:55.438102: E external/org_tensorflow/tensorflow/compiler/xla/status_macros.cc:57] INTERNAL: RET_CHECK failure (external/org_tensorflow/tensorflow/compiler/xla/pjrt/gpu_device.cc:345) local_device->device_ordinal() == local_topology.devices_size()

Other Google code bases (MediaPipe, ZetaSQL) build the same words; only a check whose source lies under
``xla/`` (jaxlib's ``external/xla/xla/...``, TensorFlow's ``tensorflow/compiler/xla/...``) is read here.

Facts: one ``xla_ret_check_failed`` per source location of a file (every replica and retry logs it again):
``source`` (the path from ``xla/`` on, ``xla/pjrt/gpu_device.cc``), ``source_line``, ``condition`` (the
rest of the line: the condition and the check's message), ``repeats``. Empty input, or no such line:
nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import XlaRetCheckFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "xla_ret_check"

# INTERNAL: RET_CHECK failure (external/org_tensorflow/tensorflow/compiler/xla/pjrt/gpu_device.cc:345) local_device->device_ordinal() == local_topology.devices_size()   (jax-ml/jax#11882)
_LINE = re.compile(r"RET_CHECK failure \((?P<path>[^\s():]{1,400}):(?P<line>\d{1,7})\) ?(?P<condition>[^\n]{0,1000})")
_MARK = "RET_CHECK failure ("


def _source(path: str) -> str | None:
    """The path from its last ``xla/`` directory on; None for a source outside XLA."""
    if path.startswith("xla/"):
        return path
    at = path.rfind("/xla/")
    return path[at + 1:] if at != -1 else None


def detect(text: str) -> bool:
    # asked only where SIGNATURES matched (facts/classify.py)
    return any(_source(m["path"]) for m in _LINE.finditer(text))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    first: dict[tuple[str, int], tuple[int, str]] = {}
    repeats: dict[tuple[str, int], int] = {}
    for n, line in iter_lines(_LINE, artefact):
        m = _LINE.search(line)
        source = _source(m["path"])
        if source is None:
            continue
        result.lines_used += 1
        key = (source, int(m["line"]))
        first.setdefault(key, (n, m["condition"].strip()))
        repeats[key] = repeats.get(key, 0) + 1
    for (source, line_no), (n, condition) in first.items():
        fb.add(XlaRetCheckFailed, n, source=source, source_line=line_no, condition=condition,
               repeats=repeats[(source, line_no)])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"RET_CHECK failure \([^\s():]{0,400}xla/",)

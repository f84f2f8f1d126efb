"""Triton Inference Server's model-status table, which ``tritonserver`` logs at start-up once every model of its
repository was tried (triton-inference-server/core src/server.cc PrintModelStatus, printed by
triton-inference-server/common src/table_printer.cc)::

    +----------------+---------+------------------------------------------------------------- ... -----+
    | Model          | Version | Status                                                                 |
    +----------------+---------+------------------------------------------------------------- ... -----+
    | postprocessing | 1       | READY                                                                  |
    | tensorrt_llm   | 1       | UNAVAILABLE: Internal: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] CUDA runtime error in cudaDeviceGetDefaultMemPool(&memPool, device): operation no |
    |                |         | t supported (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/bufferManager.cpp:170)                    |
    |                |         | 1       0x7f981281e045 /opt/tritonserver/backends/tensorrtllm/libtriton_tensorrtllm.so(+0x36045) [0x7f981281e045] |

The status is ``ModelReadyStateString(state)`` (model_lifecycle.cc: UNKNOWN, READY, UNAVAILABLE, LOADING, UNLOADING),
then ``": " + <why>`` when the model has a reason (a load that failed: the backend's Status, ``Internal: ...``), or
``Not loaded: No model version was found`` with version ``-``. TablePrinter gives each column a share of the terminal's
width and prints a cell's text in rows of that share: a line of the text longer than the share is cut at exactly that
many characters, mid-word (``FairShare``: ``line.substr(k * share, share)``), each of its lines (the reason's ``\\n``,
a backtrace's frames) starts a row of its own, and every row is padded with blanks to the share (``std::setw``), the
other columns' cells blank. So a row whose status cell fills the share to its last character was cut there and goes on
in the next row without a separator; a padded one ended a line of the text. Read whole, the reason's first line is the
error the backend returned; a CUDA error inside it (TensorRT-LLM's ``CUDA runtime error in <call>: <text>``, read as
facts/parsers/cuda_app.py reads it on one line) is the failure's cause.

Sample rows (real, from the public threads named)::

    | tensorrt_llm   | 1       | UNAVAILABLE: Internal: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] CUDA runtime error in cudaDeviceGetDefaultMemPool(&memPool, device): operation no |   (triton-inference-server/server#6950)
    |                |         | t supported (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/bufferManager.cpp:170)                                                                                                    |   (the same)
    | multimodal_encoders | 1       | UNAVAILABLE: Internal: Stub process 'multimodal_encoders_0_0' is not healthy.                                                                                       |   (triton-inference-server/tensorrtllm_backend#712)

A terminal that cut the table's rows at its own width (tensorrtllm_backend#328) is joined back by facts/lines.py before
the rows are read here; such rows are no longer padded to one share, so only a row of the column's share (measured on
the table's rule, else the width most rows share) is taken for one TablePrinter cut.

Facts: ``triton_model_state`` per model and version not loaded (UNAVAILABLE, ``Not loaded``), its reason's first line
joined whole and the model and version named; where that line holds a CUDA error cuda_app reads, a ``cuda_error`` too
(same line, the row's first), which the CUDA error catalogue judges. READY rows (and LOADING, UNLOADING, UNKNOWN) are
read and make no fact: a loaded model says nothing of the GPU's health. Empty input, or no row: nothing.
"""
from __future__ import annotations

import re
from collections import Counter

from stethoscope.facts.kinds.app import CudaError, TritonModelState  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers import cuda_app
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "triton_model_table"

# | tensorrt_llm   | 1       | UNAVAILABLE: Internal: unexpected error when creating modelInstanceState: ...   (server#6950)
# | postprocessing | 1       | READY        |
# | ensemble       | -       | Not loaded: No model version was found |      (server.cc: version "-")
#   (a record's first row: a version (a number, or "-") and a state of ModelReadyStateString's, or "Not loaded: ";
#   the model a run without "|", bounded: no two unbounded runs meet)
_RECORD = re.compile(r"^[ \t]{0,8}\| [^|\n]{1,300}\| (?:\d{1,19}|-) {0,40}\| "
                     r"(?:UNAVAILABLE|UNKNOWN|LOADING|UNLOADING|READY|Not loaded: )")
# |                |         | t supported (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/bufferManager.cpp:170)     |   (server#6950)
#   (a continuation row: the version's cell blank; the model's too, unless the model's name was cut as well)
_CONTINUED = re.compile(r"^[ \t]{0,8}\|[^|\n]{0,300}\| {1,60}\|")
# +----------------+---------+----------------------------------------------------------- ... ---+   (the table's rule)
_RULE = re.compile(r"^[ \t]{0,8}\+(-{3,300})\+(-{3,60})\+(-{3,5000})\+[ \t]*$")
_MARKERS = ("| UNAVAILABLE", "| READY", "| UNKNOWN", "| LOADING", "| UNLOADING", "| Not loaded: ")
#: states that say the model is not loaded (a fact); the others are read without one
_NOT_LOADED = ("UNAVAILABLE", "Not loaded")
#: rows of one record read at most (a backend's backtrace: ~20 frames)
_MAX_ROWS = 200
#: the longest reason read for a CUDA error (a backend's message is a line of a few hundred characters; cuda_app's forms
#: cost ~0.3 s over a 120,000-character one)
_MAX_REASON = 4000


def _cells(line: str) -> tuple[str, str, str, bool]:
    """(model cell, version cell, status cell, closed) of a row; each cell without the one blank TablePrinter puts
    before it and the one after it (a status cell cut short keeps what there is; ``closed``: it ends in "|")."""
    body = line.strip()[1:]
    model, version, status = body.split("|", 2)
    closed = status.rstrip().endswith("|")
    status = status.rstrip()[:-1] if closed else status.rstrip()
    status = status[1:] if status.startswith(" ") else status
    if closed and status.endswith(" "):
        status = status[:-1]
    return model.strip(), version.strip(), status, closed


def _share(artefact: Artefact) -> int | None:
    """The status column's share: from the table's rule, else the status width most closed rows share (two at least)."""
    widths: Counter[int] = Counter()
    for line in artefact.lines:
        if (m := _RULE.match(line)) is not None:
            return len(m[3]) - 2
        if line.lstrip().startswith("|") and line.count("|") >= 4:
            _m, _v, status, closed = _cells(line)
            if closed:
                widths[len(status)] += 1
    if not widths:
        return None
    width, count = widths.most_common(1)[0]
    return width if count >= 2 else None


def detect(text: str) -> bool:
    if not any(k in text for k in _MARKERS):
        return False
    return any(_RECORD.match(line) for line in text.splitlines() if line.lstrip().startswith("|"))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    share = None
    n = 0
    while n < len(lines):
        line = lines[n]
        n += 1
        if _RECORD.match(line) is None:
            continue
        if share is None:
            share = _share(artefact) or -1
        first = n
        model, version, status, closed = _cells(line)
        text = [status]
        cut = closed and len(status) == share and not status.endswith(" ")  # TablePrinter cut the line here
        result.lines_used += 1
        while n < len(lines) and n - first < _MAX_ROWS and _RECORD.match(lines[n]) is None:
            if not lines[n].strip():
                # rows facts/lines.py joined to the one above them (a terminal's cuts) are left blank there
                k = n
                while k < len(lines) and k - first < _MAX_ROWS and not lines[k].strip():
                    k += 1
                if k < len(lines) and _CONTINUED.match(lines[k]) is not None and _RECORD.match(lines[k]) is None:
                    n = k
                    continue
                break
            if _CONTINUED.match(lines[n]) is None:
                break
            more_model, _v, more, more_closed = _cells(lines[n])
            n += 1
            result.lines_used += 1
            if more_model:
                model += more_model  # a model's name cut at its column's share
            if cut:
                text[-1] += more
            else:
                text.append(more.rstrip())
            cut = more_closed and len(more) == share and not more.endswith(" ")
        state, _sep, reason = text[0].rstrip().partition(": ")
        if state not in _NOT_LOADED:
            continue
        reason = reason.strip()
        fb.add(TritonModelState, first, model=model, version=version, state=state, reason=reason[:600],
               message=f"model '{model}' version {version}: {text[0].strip()}"[:600])
        rec = cuda_app.read_message(reason) if len(reason) <= _MAX_REASON else None
        if rec is not None:
            fb.add(CudaError, first, **rec)
    return result


#: line signatures (facts/classify.py); (?m): one RE2 set over the whole text
SIGNATURES = (r"(?m)^[ \t]*\| [^|\n]+\| (?:\d+|-) *\| (?:UNAVAILABLE|UNKNOWN|LOADING|UNLOADING|READY|Not loaded: )",)

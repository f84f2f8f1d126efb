"""Known PyTorch warnings (``knowledge/torch_warnings.yaml``) in a PyTorch log: read by
:mod:`torch_log`, which owns the artefact.

PyTorch's C++ warnings (``TORCH_WARN``, ``TORCH_WARN_ONCE``) print a c10 log line
``[W<MMDD> <time> <file>:<line>] Warning: <message> (function <fn>)``, after a ``[rankN]:``
prefix from 2.2 on (NVIDIA/flashdreams#156, PyTorch 2.6)::

    [rank2]:[W525 04:26:31.066855952 ProcessGroupNCCL.cpp:1575] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())

A warning quoted without its log header keeps c10's body (``Warning: <message> (function <fn>)``,
c10/util/Exception.cpp; pytorch/pytorch#114168)::

    Warning: 0TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives.  (function operator())

DeepSpeed, which runs on torch.distributed, warns through its own logger
(``[<time>] [WARNING] [<file>:<line>:<function>] <message>``; EleutherAI/gpt-neox#990)::

    [WARNING] [comm.py:152:init_deepspeed_backend] NCCL backend in DeepSpeed not yet implemented

Facts: ``torch_warning`` per such line whose message the catalogue knows (its ``id``, whether it
is benign, what it means). A warning line the catalogue does not know is left unread.
"""
from __future__ import annotations

import re

from stethoscope.facts import classify, knowledge
from stethoscope.facts.kinds.app import TorchWarning  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder
from stethoscope.facts.parsers import torch_log_lines as tl
from stethoscope.facts.lines import is_title

# [rank2]:[W525 04:26:31.066855952 ProcessGroupNCCL.cpp:1575] Warning: WARNING: destroy_process_group() was not called ...
# (month and day as glog prints them: "W525" is May 25, "W1206" December 6)
# [W ProcessGroupNCCL.cpp:1250] Warning: ...   (PyTorch < 2.4: no timestamp)
# (RayTrainWorker pid=2273, ip=172.24.21.66) [rank7]:[W Utils.hpp:108] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarString)
#   (ray-project/ray#47286: c10d's Utils.hpp, a header)
C10_WARNING = re.compile(r"\[W(?:\d{3,4} [\d:.]+)? *(?P<src>[\w./-]+\.(?:cpp|cc|hpp|h|py)):\d+\] (?:Warning: )?(?P<msg>.*\S|[^\S\n])\s*$")
# The same warning quoted without the log header, as c10 builds its body (c10/util/Exception.cpp,
# WarningHandler::process: "Warning: " << msg << " (function " << function << ")"):
# Warning: 0TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives.  (function operator())   (pytorch/pytorch#114168)
C10_BODY = re.compile(r"^[ \t]*Warning: (?P<msg>[^\n]{0,2000}?\S) {1,2}\(function [^()\n]{1,200}(?:\(\))?\)[ \t]*\r?$")
# [2023-07-24 13:21:25,679] [WARNING] [comm.py:152:init_deepspeed_backend] NCCL backend in DeepSpeed not yet implemented
# [WARNING] [comm.py:152:init_deepspeed_backend] NCCL backend in DeepSpeed not yet implemented   (time left out: gpt-neox#990)
# (DeepSpeed's logger, deepspeed/utils/logging.py; facts/lines.py strips the bracketed time and level when both are there)
DS_WARNING = re.compile(r"^(?:\[WARNING\] )?\[(?P<src>[\w.-]+\.py):\d+:\w+\] (?P<msg>.*\S)\s*$")
# A Python warning (warnings.warn) as CPython prints it (Lib/warnings.py _formatwarnmsg_impl:
# f"{msg.filename}:{msg.lineno}: {category}: {msg.message}\n", then the source line indented by two), read
# for a catalogue row marked ``bare`` (PyTorch's own text); PyTorch's capability warnings start their
# message with a newline, so the header's line may hold no message (the message's lines follow):
# 0: /usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:283: UserWarning:  0:     Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. 0:     Minimum and Maximum cuda capability supported by this version of PyTorch is 0:     (8.0) - (12.0)   (pytorch/pytorch#164596)
# .venv/lib/python3.7/site-packages/torch/cuda/__init__.py:146: UserWarning:    (meituan/YOLOv6#350; its message on the lines below)
# (the file's name is taken before the match, the message after it: one pass, where a file-name run and a message run in
# the pattern scanned a long line of repeated warnings once per '/' and per header, bench/redos.py over 2 s)
PY_WARNING = re.compile(r"\.py:\d{1,7}: (?P<cat>[A-Z]\w{0,40}Warning):(?P<msg>.*)$")
_FILE_NAME = re.compile(r"[\w.-]{1,200}$")
# CPython prints the warning's source line under its header, indented by two (_formatwarnmsg_impl: "  %s\n" % line.strip()):
# /usr/local/lib/python3.12/dist-packages/sglang/srt/layers/quantization/awq.py:76: UserWarning: Only CUDA, HIP and XPU support AWQ currently.
#   warnings.warn(f"Only CUDA, HIP and XPU support AWQ currently.")      (gpustack/gpustack#5218: the message again, inside the call)
_SOURCE_LINE = re.compile(r"  \S")
#: how far above a bare message line its header may stand (the message's first lines above it)
_HEADER_ABOVE = 3


def catalogue() -> list[knowledge.TorchWarning]:
    return knowledge.load("torch_warnings.yaml").warnings


def markers() -> tuple[str, ...]:
    return tuple(row.match for row in catalogue())


#: a catalogued warning's message, in any of the forms above: PyTorch's (or DeepSpeed's) own text, so a
#: file holding one is a PyTorch log even with none of torch_log's other signatures (a lone warning a
#: Ray worker's prefix hides, or one quoted without its header); facts/classify.py's set
SIGNATURE = "|".join(re.escape(m) for m in markers())


def read(artefact: Artefact, b: FactBuilder, used: set[int]) -> None:
    """One ``torch_warning`` per known warning line; their lines join ``used``."""
    if classify.found(artefact.text, SIGNATURE) is False:  # the classifier's pass found no marker (torch_log's signature)
        return
    rows = catalogue()
    for no, line, _start, _end in tl.marked_lines(artefact, markers()):
        row = next((r for r in rows if r.match in line), None)
        if row is None:
            continue
        m = C10_WARNING.search(line) or DS_WARNING.search(line) or C10_BODY.search(line)
        if m:
            src, message = m.groupdict().get("src") or "", m["msg"]  # "": the header was not quoted
        elif row.bare and (got := _python_warning(artefact.lines, no, line, is_title(artefact.path))) is not None:
            src, message = got
        else:
            continue
        node, grank = tl.line_context(artefact, line, no)
        b.add(TorchWarning, no, node=node, warning_id=row.id, benign=row.benign, meaning=" ".join(row.meaning.split()),
              rank=grank, source_file=src, message=message)
        used.add(no)


def _python_warning(lines: list[str], no: int, line: str, title: bool) -> tuple[str, str] | None:
    """The source file and message of a catalogued Python warning on line ``no``: its header on the
    line itself, or a header with no message of its own a few lines above (the message's lines
    between); "" where the message was pasted without it, unless in an issue's title: there the text
    without its header is the reporter's words ("CUDA capability is not compatible with the current
    PyTorch installation", jackyjsy/CVPR21Chal-SLR#20's title), not what PyTorch printed."""
    head = _header(line)
    if head is not None:
        return head[0], head[1] or line.strip()
    for k in range(no - 1, max(0, no - 1 - _HEADER_ABOVE), -1):
        above = _header(lines[k - 1])
        if above is not None:
            if above[1] and k == no - 1 and _SOURCE_LINE.match(line):
                return None  # CPython's copy of the source line under a header that holds the message: the call, not a warning
            return (above[0], line.strip()) if not above[1] else ("", line.strip())
    return None if title else ("", line.strip())


def _header(line: str) -> tuple[str, str] | None:
    """(file name, message) of CPython's warning header on ``line``, the message "" where it starts below."""
    m = PY_WARNING.search(line) if ".py:" in line else None
    if m is None:
        return None
    name = _FILE_NAME.search(line, max(0, m.start() - 200), m.start())
    return (name[0] + ".py" if name else ".py"), m["msg"].strip()

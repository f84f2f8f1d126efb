"""PyTorch's ``torch.utils.cpp_extension`` at import: the process found no usable GPU.

``_find_cuda_home()`` (torch/utils/cpp_extension.py) prints, and newer releases log with
``logger.warning``, this line when a CUDA toolkit is installed but ``torch.cuda.is_available()`` is
False: no driver reachable, the GPUs not passed into the container, CUDA_VISIBLE_DEVICES empty,
or a CPU-only build step. Any program that imports cpp_extension (an extension build, mmcv,
DeepSpeed's op builder) prints it to its own log.

Sample content (an MMEdu import in a container; pytorch/pytorch#153760 quotes the first words
alone, "Job failures with: `No CUDA runtime is found`")::

    >>> import MMEdu  # doctest: +SKIP
    No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'

A program's own print of ``torch.cuda.is_available()`` / ``torch.cuda.device_count()`` says the same
(``torch.cuda.is_available(): False``, skypilot-org/skypilot#2510; the REPL's ``>>> torch.cuda.is_available()``
with ``False`` on the next line): read here too.

A library or installer that asked the same and says so in its own words is read too: diffusers' ``ValueError:
torch.cuda.is_available() should be True but is False. xformers' memory efficient attention is only available for GPU``,
an installer's ``Torch reports CUDA not available`` (kohya_ss's GUI setup, SD.Next's); and PyTorch's own
``AssertionError: Torch not compiled with CUDA enabled`` (a CPU-only build asked for CUDA: ``cpu_build``), as is a
``+cpu`` version printed in the same file (``Torch 2.0.1+cpu``) beside such a report.

Facts emitted: ``torch_cuda_unavailable`` per such line (``cuda_home`` where printed), and one for a
program's prints that say no GPU (``via`` is_available or device_count; a True / non-zero answer is read, no fact). Other lines
are not read (a log holds other programs' lines: their own readers read them). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import TorchCudaUnavailable  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "torch_cpp_extension"

# No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'
# 4.070 No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda' 4.146       (a docker build's step log, one line)
# Job failures with: `No CUDA runtime is found`                                   (quoted, pytorch/pytorch#153760)
_LINE = re.compile(r"\bNo CUDA runtime is found\b(?:, using CUDA_HOME='(?P<home>[^'\n]*)')?")
_DETECT = re.compile(r"\bNo CUDA runtime is found\b")
# A program's own print of PyTorch's answer, the first thing a GPU job's script checks:
# (task, pid=201122) torch.cuda.is_available(): False      (skypilot-org/skypilot#2510: a SkyPilot task; the Ray
# (task, pid=201122) torch.cuda.device_count(): 0           prefix is facts/lines.py's)
# CONSTRUCTED, the same print's other separators: "torch.cuda.is_available() = False", "torch.cuda.is_available() False"
_PROBE = re.compile(r"^(?:>>> )?torch\.cuda\.(?P<call>is_available|device_count)\(\)(?:\s{0,8}[:=]\s{0,8}|\s{1,8})"
                    r"(?P<answer>False|True|\d{1,3})\s*$")
# the REPL's form, its answer on the next line (CONSTRUCTED from Python's interactive prompt):
# >>> torch.cuda.is_available()
# False
_REPL = re.compile(r"^>>> torch\.cuda\.(?P<call>is_available|device_count)\(\)\s*$")
_PROBE_SIG = re.compile(r"torch\.cuda\.(?:is_available|device_count)\(\)")
# A library or installer that asked torch.cuda.is_available(), got False and says so in its own words:
# ValueError: torch.cuda.is_available() should be True but is False. xformers' memory efficient attention is only available for GPU
#   (diffusers models/attention_processor.py, set_use_memory_efficient_attention_xformers: raise ValueError(
#   "torch.cuda.is_available() should be True but is False. xformers' memory efficient attention is only available
#   for GPU "); bmaltais/kohya_ss#1608, #1610: a LoRA trainer's --xformers on a process that saw no GPU)
# >WARNING  Torch reports CUDA not available
#   (bmaltais/kohya_ss#1608, the GUI's setup check: "if not torch.cuda.is_available(): log.warning('Torch reports
#   CUDA not available')"; SD.Next's installer logs the same words; "PyTorch reports CUDA not available" the variant)
# AssertionError: Torch not compiled with CUDA enabled
#   (torch/cuda/__init__.py _lazy_init / 1.x _check_driver: 'raise AssertionError("Torch not compiled with CUDA
#   enabled")' where torch._C lacks the CUDA bindings: a CPU-only build asked for a GPU; facebookresearch/detectron2#460)
_NOT_COMPILED = re.compile(r"\bAssertionError: Torch not compiled with CUDA enabled\b")
# the build's version printed beside the report, a CPU wheel's local version "+cpu":
# >INFO     Torch 2.0.1+cpu          (bmaltais/kohya_ss#1608: the GUI's setup check, log.info(f'Torch {torch.__version__}'))
# PyTorch version: 2.8.0.dev20250528+cpu       (collect_env's line, where the same file holds it)
_CPU_VERSION = re.compile(r"\b(?:Py)?Torch(?: version:)? {1,4}\d{1,3}\.\d{1,3}[\w.]{0,40}\+cpu\b")
#   (the installer's warning is the line's last words: a sentence quoting it is no report)
_SAID = re.compile(r"\btorch\.cuda\.is_available\(\) should be True but is False\b"
                   r"|\b(?:Py)?Torch reports CUDA not available\.?[ \t]*\r?$", re.M)


def detect(head: str) -> bool:
    if "No CUDA runtime" in head and _DETECT.search(head) is not None:
        return True
    if "not compiled with CUDA" in head and _NOT_COMPILED.search(head) is not None:
        return True
    if "CUDA not available" in head or "should be True but is False" in head:
        if _SAID.search(head) is not None:
            return True
    return "torch.cuda." in head and any(_probe(line, nxt) is not None for line, nxt in _pairs(head))


def _pairs(text: str):
    lines = text.splitlines()
    return zip(lines, lines[1:] + [""])


def _probe(line: str, nxt: str) -> tuple[str, bool] | None:
    """(the call, whether it says no GPU) of a printed torch.cuda.is_available() / device_count() answer."""
    if "torch.cuda." not in line:
        return None
    if (m := _PROBE.match(line)) is not None:
        answer = m["answer"]
    elif (m := _REPL.match(line)) is not None and re.fullmatch(r"\s*(?:False|True|\d{1,3})\s*", nxt):
        answer = nxt.strip()
    else:
        return None
    if m["call"] == "is_available" and answer in ("True", "False"):
        return m["call"], answer == "False"
    if m["call"] == "device_count" and answer.isdigit():
        return m["call"], answer == "0"
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    if ("No CUDA runtime" not in artefact.text and "torch.cuda." not in artefact.text
            and "CUDA not available" not in artefact.text and "not compiled with CUDA" not in artefact.text):
        return result
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    cpu_build = "+cpu" in artefact.text and _CPU_VERSION.search(artefact.text) is not None
    probed = False  # one fact for a program's prints (is_available False, then device_count 0: one finding)
    for n, line in enumerate(lines, 1):
        if "No CUDA runtime" in line and (m := _LINE.search(line)) is not None:
            b.add(TorchCudaUnavailable, n, cuda_home=m["home"] or None)
            result.lines_used += 1
        elif "not compiled with CUDA" in line and _NOT_COMPILED.search(line) is not None:
            result.lines_used += 1
            if not probed:
                b.add(TorchCudaUnavailable, n, via="not_compiled", cpu_build=True)
                probed = True
        elif ("CUDA not available" in line or "should be True" in line) and _SAID.search(line) is not None:
            result.lines_used += 1
            if not probed:
                b.add(TorchCudaUnavailable, n, via="is_available", cpu_build=cpu_build)
                probed = True
        elif (p := _probe(line, lines[n] if n < len(lines) else "")) is not None:
            result.lines_used += 1
            if p[1] and not probed:
                b.add(TorchCudaUnavailable, n, via=p[0])
                probed = True
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT, _PROBE_SIG, _SAID, _NOT_COMPILED)

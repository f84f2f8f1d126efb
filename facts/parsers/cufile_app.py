"""A program's own report that cuFile (GPUDirect Storage's user library) refused to register a file.

Programs that read or write through cuFile print the library's error text when
``cuFileHandleRegister`` fails: NVIDIA's GDS tools and samples (gdsio, gdsio_verify,
cufile_sample_*.cc) as ``file register error:`` and ``cuFileGetErrorString(status)``, gdsio with the
file's name after it; DALI's GPU numpy reader (dali/util/std_cufile.cc) as ``CUFile import failed:
<path>. <text>.`` under its operator's header. The text is cufile.h's ``cufileop_status_error``
(``GPUDirect Storage not supported on current file``, ``nvidia-fs driver is not loaded``, ``internal
error``, ...). Sample content (real lines, the threads named)::

    file register error: GPUDirect Storage not supported on current file filename:/root/gds_test/gdsio.0   (NVIDIA/gds-nvidia-fs#70)
    file register error: GPUDirect Storage not supported on current file filename :/mnt/test10G          (NVIDIA/DALI#3972, CUDA 11.7's gdsio)
    Error when executing GPU operator readers__Numpy encountered:
    Error in thread 0: [/opt/dali/dali/util/std_cufile.cc:73] CUFile import failed: datasets/mnist/train/7 - seven/16712.npy. internal error.
                                                                                                         (NVIDIA/DALI#4718)

Facts: ``cufile_error`` per distinct failure of the file (the same fact as cufile.log's ERROR lines:
its ``event`` read from the error text by :func:`cufile_log.event_of`, ``handle_register_failed`` for
a text that names no more particular cause; ``component`` the program's form, ``gds_tools`` or
``dali``). DALI's operator header above its failure is read with it. A text without such a line
is not this reader's.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import CufileError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers import cufile_log
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "cufile_app"

# cufile.h's cufileop_status_error(), the texts cuFileGetErrorString gives (CU_FILE_* 5001-5039): a line is read only where
# one of them follows the program's words (an application's own "file register error:" of another library is not cuFile's)
_STATUS_TEXTS = (
    "nvidia-fs driver is not loaded", "invalid property", "property range error", "nvidia-fs driver version mismatch",
    "nvidia-fs driver version read error", "driver shutdown in progress", "GPUDirect Storage not supported on current platform",
    "GPUDirect Storage not supported on current file", "GPUDirect Storage not supported on current GPU",
    "nvidia-fs driver ioctl error", "CUDA Driver API error", "invalid device pointer", "invalid pointer memory type",
    "pointer range exceeds allocated address range", "cuda context mismatch", "access beyond maximum pinned size",
    "access beyond mapped size", "unsupported file type", "unsupported file open flags", "fd direct IO not set",
    "invalid arguments", "device pointer already registered", "device pointer lookup failure", "driver or file access error",
    "driver is already open", "file descriptor is not registered", "file descriptor is already registered",
    "GPU device not found", "internal error", "failed to obtain new file descriptor", "NVFS driver initialization error",
    "GPUDirect Storage disabled by config on current file", "failed to submit batch operation",
    "failed to allocate pinned GPU Memory", "queue full for batch operation", "cuFile stream operation not supported",
    "GPUDirect Storage Max Error", "unknown cufile error")
_STATUS = re.compile(r"(?i:(?:cufile: )?(?:" + "|".join(re.escape(t) for t in _STATUS_TEXTS) + r"))")

# NVIDIA's GDS tools and samples (cufile_sample_001.cc and its siblings, gdsio):
#   std::cerr << "file register error:" << cuFileGetErrorString(status) << std::endl;
#   std::cerr << "File register error: " << cuFileGetErrorString(status) << std::endl;
# file register error: GPUDirect Storage not supported on current file filename:/root/gds_test/gdsio.0   (gds-nvidia-fs#70)
# file register error: GPUDirect Storage not supported on current file filename :/mnt/test10G          (DALI#3972)
_GDS_TOOLS = re.compile(r"(?:^|\s)[Ff]ile register error: ?(?P<text>[^\n]{1,300})", re.M)
# gdsio's file name after the library's text
_FILENAME = re.compile(r" filename ?:")
# DALI dali/util/std_cufile.cc cufile_open:
#   DALI_FAIL("CUFile import failed: " + path + ". " + std::string(cufileop_status_error(status.err)) + ".");
# Error in thread 0: [/opt/dali/dali/util/std_cufile.cc:73] CUFile import failed: datasets/mnist/train/7 - seven/16712.npy. internal error.
_DALI = re.compile(r"CUFile import failed: (?P<path>[^\n]{1,500})\. (?P<text>[^.\n]{1,200})\.?[ \t]*$")
# DALI's operator header above it: "Error when executing GPU operator readers__Numpy encountered:"
_DALI_HEADER = re.compile(r"^\s*Error when executing (?:GPU|CPU|Mixed) operator \w+ encountered:\s*$")


def detect(head: str) -> bool:
    return any(_read(line) is not None for line in head.splitlines() if "ile register error:" in line or "CUFile import failed: " in line)


def _read(line: str) -> tuple[str, str, str] | None:
    """(component, the library's error text, the message as printed) of one line, or None."""
    if "ile register error:" in line and (m := _GDS_TOOLS.search(line)) is not None:
        text = m["text"].strip()
        f = _FILENAME.search(text)
        text = (text[:f.start()] if f else text).strip()
        return ("gds_tools", text, line[m.start():].strip()) if _STATUS.match(text) else None
    if "CUFile import failed: " in line and (m := _DALI.search(line)) is not None:
        return ("dali", m["text"].strip(), line[m.start():].strip()) if _STATUS.match(m["text"].strip()) else None
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    found: dict[tuple[str, str], list] = {}  # (component, text) -> [line, count, message]
    lines = artefact.lines
    for n, line in enumerate(lines, 1):
        rec = _read(line)
        if rec is None:
            continue
        component, text, message = rec
        result.lines_used += 1
        if component == "dali" and n > 1 and _DALI_HEADER.match(lines[n - 2]):
            result.lines_used += 1
            result.spans.append((n - 1, n))
        if (component, text) in found:
            found[(component, text)][1] += 1
        else:
            found[(component, text)] = [n, 1, message]
    for (component, text), (n, count, message) in found.items():
        event = cufile_log.event_of(text)
        b.add(CufileError, n, event=event if event != "other" else "handle_register_failed", component=component,
              message=message, count=count)
    return result


#: the line signatures this reader owns
SIGNATURES = (_GDS_TOOLS, r"CUFile import failed: ")

"""Python's OSError message with an errno, in any program's output (a traceback's last line, a
launcher's or pip's report of it), so it is looked for anywhere in a file.

CPython (Objects/exceptions.c, ``OSError_str``) writes ``[Errno %S] %S: %R -> %R`` for a call
on two files, ``[Errno %S] %S: %R`` for one, ``[Errno %S] %S`` for none (``errno``, ``strerror``,
then ``repr()`` of the file names); a traceback prints it after the exception's class and ": ".
Sample lines (real, from the public threads named)::

    OSError: [Errno 28] No space left on device    (NVIDIA/Megatron-LM#878, its title: a docker container without --shm-size)
    OSError: [Errno 28] No space left on device    (babysor/MockingBird#774: torch.save of a checkpoint onto a full disk)
    ERROR: Could not install packages due to an EnvironmentError: [Errno 28] No space left on device    (domoritz/streamlit-docker#1)

Facts: ``python_os_error`` per line: the exception's class, the errno and its name (Linux
numbering), the strerror text, the file when named and whether it lies under /dev/shm. What the
error means depends on that file and the rest of the paste (rules/host/no_space_left_*.yaml read
ENOSPC: a full /dev/shm); an errno no rule reads stays an unexplained error. A warning that
quotes an OSError (``UserWarning: [Errno 28] ...``) is no error of its own and is not read. Empty
input, or no such line: nothing.
"""
from __future__ import annotations

import errno as _errno
import re

from stethoscope.facts.kinds.host import PythonOsError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "python_os_error"

# OSError: [Errno 28] No space left on device
# FileNotFoundError: [Errno 2] No such file or directory: '/dev/shm/nccl-abc'       (CPython's one-file form filled in)
# OSError: [Errno 18] Invalid cross-device link: '/a' -> '/b'                       (its two-file form)
#   the text ends at a character that is no blank (nor the sentence's dot): a lazy text tried the line's end after
#   each blank of a long run before the last word, scanning the run each time (bench/redos.py, session 19: 1.5 s at
#   120,000 characters); the same answers on every real line of fixtures/, tests/ and the dev corpus, and on 20,000
#   mutated ones
OS_ERROR = re.compile(
    r"\b(?P<exc>[A-Za-z_][\w.]{0,80}(?:Error|Exception)): \[Errno (?P<num>\d{1,4})\] (?P<text>[^\n:'\"]{0,199}[^\s:'\".])"
    r"(?:: (?P<q>['\"])(?P<file>[^\n'\"]{0,1000})(?P=q)(?: -> ['\"][^\n'\"]{0,1000}['\"])?)?\.?[ \t]*\r?$", re.M)
_MARK = re.compile(r"\[Errno \d")


def detect(head: str) -> bool:
    return "[Errno " in head and OS_ERROR.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines(_MARK, artefact):
        m = OS_ERROR.search(line)
        if not m:
            continue
        result.lines_used += 1
        num, filename = int(m["num"]), m["file"]
        fb.add(PythonOsError, n, exception=m["exc"].rsplit(".", 1)[-1], errno=num, errno_name=_errno.errorcode.get(num),
               strerror=m["text"].strip(), filename=filename,
               on_dev_shm=filename is not None and filename.startswith("/dev/shm/"))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?:Error|Exception): \[Errno \d+\] ",)

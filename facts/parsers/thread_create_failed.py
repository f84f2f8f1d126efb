"""A program's own report that it could not start a thread, in any program's output (a training job's log, a
server's console), so it is looked for anywhere in a file.

``pthread_create()`` fails with EAGAIN (11, "Resource temporarily unavailable") when "insufficient resources to
create another thread" or a limit on threads was met (pthread_create(3)): the user's process limit (RLIMIT_NPROC,
``ulimit -u``: all of that user's processes and threads on the host count), the cgroup's ``pids.max`` (a container's
``--pids-limit``, a pod's PID limit, systemd's TasksMax), the kernel's ``threads-max`` / ``pid_max``, or the memory
for the thread's stack. The libraries that start thread pools at import say so on stderr:

- OpenBLAS (driver/others/blas_server.c, ``blas_thread_init``): ``pthread_create failed for thread %ld of %d: %s``
  per thread, then ``RLIMIT_NPROC %ld current, %ld max`` (getrlimit's soft and hard limit, -1 unlimited), newer
  releases ``ensure that your address space and process count limits are big enough (ulimit -a)``, and
  ``calling exit(3)``; releases before 0.2.20 wrote ``pthread_create: %s``;
- TensorFlow (core/platform/default/env.cc, tsl's since 2.12): ``CHECK_EQ(ret, 0) << "Thread " << name << "
  creation via pthread_create() failed."`` (before 2.5 without the name), glog's fatal line, then SIGABRT;
- libgomp (GCC's OpenMP runtime, team.c): ``gomp_fatal ("Thread creation failed: %s", strerror (err))``, behind
  gomp_fatal's ``libgomp: `` prefix;
- CPython (Modules/_threadmodule.c, ``threading.Thread.start`` through ``_thread``): ``PyErr_SetString(ThreadError,
  "can't start new thread")`` where PyThread_start_new_thread (pthread_create) failed, ThreadError being RuntimeError,
  so a traceback ends ``RuntimeError: can't start new thread`` (the errno is not printed).

Sample lines (real, from the public threads named)::

    OpenBLAS blas_thread_init: pthread_create failed for thread 20 of 64: Resource temporarily unavailable    (facebookresearch/detectron2#3900)
    OpenBLAS blas_thread_init: RLIMIT_NPROC 1287654 current, 1287654 max
    OpenBLAS blas_thread_init: RLIMIT_NPROC -1 current, -1 max        (vladmandic/sdnext#2642: unlimited, so no RLIMIT_NPROC refused it)
    OpenBLAS blas_thread_init: pthread_create: Resource temporarily unavailable    (willsheffler/worms#2, an old release)
    [F tensorflow/core/platform/default/env.cc:73] Check failed: ret == 0 (11 vs. 0)Thread tf_data_iterator_resource creation via pthread_create() failed.    (google-research/meta-dataset#84)
    2.3.0-rc2: Check failed: ret == 0 (11 vs. 0) Thread creation via pthread_create() failed. Aborted    (tensorflow/tensorflow#41532, its title)
    libgomp: Thread creation failed: Resource temporarily unavailable    (Alexander-H-Liu/End-to-end-ASR-Pytorch#50)
    RuntimeError: can't start new thread    (CPython Modules/_threadmodule.c: PyErr_SetString(ThreadError, "can't start new thread"), as a traceback's last line prints it)

Facts: ``thread_create_failed`` per program and file (OpenBLAS writes one line per thread it could not start: they
are one failure, counted in ``failures``): the program, the error, TensorFlow's thread name, OpenBLAS's RLIMIT_NPROC
soft and hard limit when printed. Which limit refused the thread the lines do not say (RLIMIT_NPROC -1 rules that
one out). Empty input, or no such line: nothing.
"""
from __future__ import annotations

import errno as _errno
import os
import re

from stethoscope.facts.kinds.host import ThreadCreateFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "thread_create_failed"

# OpenBLAS blas_thread_init: pthread_create failed for thread 20 of 64: Resource temporarily unavailable   (detectron2#3900)
# OpenBLAS blas_thread_init: pthread_create: Resource temporarily unavailable                              (worms#2, before 0.2.20)
_OPENBLAS = re.compile(
    r"OpenBLAS blas_thread_init: pthread_create(?: failed for thread \d{1,6} of \d{1,6})?: (?P<err>[A-Za-z][^\n]{0,79}?)[ \t]*\r?$",
    re.M)
# OpenBLAS blas_thread_init: RLIMIT_NPROC 1287654 current, 1287654 max      (detectron2#3900)
# OpenBLAS blas_thread_init: RLIMIT_NPROC -1 current, -1 max                (sdnext#2642)
_RLIMIT = re.compile(r"OpenBLAS blas_thread_init: RLIMIT_NPROC (?P<cur>-?\d{1,20}) current, (?P<max>-?\d{1,20}) max")
# [F tensorflow/core/platform/default/env.cc:73] Check failed: ret == 0 (11 vs. 0)Thread tf_data_iterator_resource creation via pthread_create() failed.   (meta-dataset#84)
# 2.3.0-rc2: Check failed: ret == 0 (11 vs. 0) Thread creation via pthread_create() failed. Aborted    (tensorflow#41532's title)
_TF = re.compile(r"Check failed: ret == 0 \((?P<ret>\d{1,4}) vs\. 0\) ?Thread (?:(?P<name>[\w.:-]{1,120}) )?creation via pthread_create\(\) failed\.")
# libgomp: Thread creation failed: Resource temporarily unavailable          (End-to-end-ASR-Pytorch#50)
_GOMP = re.compile(r"\blibgomp: Thread creation failed: (?P<err>[A-Za-z][^\n]{0,79}?)[ \t]*\r?$", re.M)
# RuntimeError: can't start new thread     (CPython Modules/_threadmodule.c, ThreadError = PyExc_RuntimeError; a traceback's
#   last line, "<class>: <message>"): at a line's end only, as code testing for the text ("... in str(exc)") is no failure
_PY = re.compile(r"\bRuntimeError: can't start new thread[ \t]*\r?$", re.M)
#: how many lines after OpenBLAS's failure its RLIMIT_NPROC line is looked for in
_RLIMIT_LINES = 3

#: strerror's text -> errno name (glibc's texts, Linux numbering)
_STRERROR = {os.strerror(n): name for n, name in _errno.errorcode.items()}


def detect(head: str) -> bool:
    return ("OpenBLAS blas_thread_init: pthread_create" in head and _OPENBLAS.search(head) is not None) \
        or ("creation via pthread_create() failed" in head and _TF.search(head) is not None) \
        or ("libgomp: Thread creation failed" in head and _GOMP.search(head) is not None) \
        or ("can't start new thread" in head and _PY.search(head) is not None)


def _limit(value: str) -> int:
    n = int(value)
    return -1 if n < 0 or n >= 2**63 - 1 else n


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    text = artefact.text
    first = None  # OpenBLAS's first failure: (line, error, soft, hard)
    failures = 0
    for n, m in iter_matches(_OPENBLAS, artefact):
        result.lines_used += 1
        failures += 1
        if first is None:
            after = "\n".join(artefact.lines[n:n + _RLIMIT_LINES])
            r = _RLIMIT.search(after)
            first = (n, m["err"], _limit(r["cur"]) if r else None, _limit(r["max"]) if r else None)
    if first is not None:
        result.lines_used += sum(1 for _ in _RLIMIT.finditer(text))
        n, err, soft, hard = first
        fb.add(ThreadCreateFailed, n, program="openblas", error=err, errno_name=_STRERROR.get(err), rlimit_nproc=soft,
               rlimit_nproc_max=hard, failures=failures)
    seen: dict[str | None, int] = {}
    for n, m in iter_matches(_TF, artefact):
        result.lines_used += 1
        if m["name"] in seen:
            continue
        seen[m["name"]] = n
        ret = int(m["ret"])
        fb.add(ThreadCreateFailed, n, program="tensorflow", error=m["ret"], errno_name=_errno.errorcode.get(ret),
               thread=m["name"])
    gomp = [(n, m["err"]) for n, m in iter_matches(_GOMP, artefact)]
    if gomp:
        result.lines_used += len(gomp)
        n, err = gomp[0]
        fb.add(ThreadCreateFailed, n, program="libgomp", error=err, errno_name=_STRERROR.get(err), failures=len(gomp))
    py = [n for n, _ in iter_matches(_PY, artefact)]
    if py:
        result.lines_used += len(py)
        fb.add(ThreadCreateFailed, py[0], program="python", error="can't start new thread", failures=len(py))
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"OpenBLAS blas_thread_init: (?:pthread_create|RLIMIT_NPROC) ",
              r"Check failed: ret == 0 \(\d+ vs\. 0\) ?Thread .*creation via pthread_create\(\) failed",
              r"libgomp: Thread creation failed: ",
              r"RuntimeError: can't start new thread")

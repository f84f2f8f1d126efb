"""PyTorch DataLoader's own failures in the main process, in any program's output (a training job's
log, a traceback pasted alone), so they are looked for anywhere in a file.

torch/utils/data/dataloader.py (_MultiProcessingDataLoaderIter) raises, in the training process:

- ``RuntimeError(f"DataLoader timed out after {self._timeout} seconds")`` (``'... after {} seconds'.format``
  in 1.x) when the DataLoader was given a ``timeout`` and no batch came from its workers within it: a
  worker is stuck (reading from slow or hung storage, an object store, a lock, a deadlock in the
  dataset's code) or far slower than the timeout;
- ``RuntimeError("Too many open files. Communication with the workers is no longer possible. Please
  increase the limit using `ulimit -n` in the shell or change the sharing strategy by calling
  `torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code")`` when
  _try_get_data, after a failed get from the workers' queue, cannot open a few temporary files: the
  process's descriptors are used up (the default file_descriptor sharing strategy holds one per
  shared tensor). Before PyTorch 1.5 (pytorch/pytorch#34768) the same exhaustion reached the user as
  multiprocessing's own error, ``RuntimeError: received 0 items of ancdata`` (Lib/multiprocessing/reduction.py
  recvfds: ``'received %d items of ancdata' % len(ancdata)``, the kernel dropping the descriptors a worker sent
  over its socket because the receiver had none left), and it still does where a tensor's descriptor is received
  outside that path (a pin-memory or another queue's get);
- ``RuntimeError(f"DataLoader worker (pid(s) {pids_str}) exited unexpectedly")`` (``'... (pid(s) {})
  exited unexpectedly'.format`` before 1.9) when _try_get_data finds a worker no longer alive after a failed
  get from the workers' queue, and the SIGCHLD handler (torch/csrc/DataLoader.cpp) named no signal: a worker
  that exited by itself, on Windows (no SIGCHLD), or a death the handler missed. The handler's own line for a
  worker that exited with a non-zero code is ``DataLoader worker (pid N) exited unexpectedly with exit code N.
  Details are lost due to multiprocessing. Rerunning with num_workers=0 may give better error trace.``; one
  killed by a signal it names is torch_log's ``dataloader_worker_killed``. Neither line says why the worker
  died: a full /dev/shm (SIGBUS), the OOM killer or a memory limit (SIGKILL) and a crash in the worker's
  native code (SIGSEGV) print the signal where the handler sees it; where the paste holds only this line,
  the reason is not in it.

Sample lines (real: public repositories' notes and code comments quoting them, found with the code
index's exact-string search)::

    RuntimeError: DataLoader timed out after 120 seconds
    RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the limit using `ulimit -n` in the shell or change the sharing strategy by calling `torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code
    **Error**: `RuntimeError: received 0 items of ancdata` raised during validation when running training on GPU nodes on cluster Laffitte.    (DonsetPG/graph-physics#22)
    RuntimeError: DataLoader worker (pid(s) 16732) exited unexpectedly    (xuebinqin/BASNet#32)

Facts: ``dataloader_failure`` per line (``event`` ``timeout`` with the seconds, or ``open_files_limit``);
``dataloader_worker_exited`` per ``exited unexpectedly`` line (the workers' pids, the exit code where the line gives
one). The ``raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'...`` source line a traceback
quotes names no pid and is not read.
A worker killed by a signal (``DataLoader worker (pid N) is killed by signal: ...``) is torch_log's
``dataloader_worker_killed``. Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import DataLoaderFailure, DataLoaderWorkerExited  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "torch_dataloader"

# RuntimeError: DataLoader timed out after 120 seconds
# RuntimeError: DataLoader timed out after 1800.0 seconds          (a float timeout, as formatted)
_TIMEOUT = re.compile(r"\bDataLoader timed out after (?P<s>\d{1,9}(?:\.\d{1,6})?) seconds")
# RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the limit ...
_FD_LIMIT = re.compile(r"\bToo many open files\. Communication with the workers is no longer possible")
# **Error**: `RuntimeError: received 0 items of ancdata` raised during validation ...   (DonsetPG/graph-physics#22)
#   (multiprocessing.reduction.recvfds; only as the RuntimeError raised, a sentence naming the words is no error)
_ANCDATA = re.compile(r"\bRuntimeError: received \d{1,3} items of ancdata\b")
# The pin-memory thread's exception, re-raised in the main process by ExceptionWrapper.reraise() as
# "Caught {exc_type.__name__} {where}." (torch/utils/data/_utils/pin_memory.py: where=f"in pin memory thread for device
# {device_id}"; "...for device {}".format() before 1.9), then the thread's "Original Traceback" ending in its own line:
# RuntimeError: Caught RuntimeError in pin memory thread for device 0.                       (mittagessen/kraken#642)
# torch.AcceleratorError: Caught AcceleratorError in pin memory thread for device 0.        (torch 2.8 on, a project's notes)
# torch.AcceleratorError: CUDA error: out of memory                                          (the original error)
_PIN_THREAD = re.compile(r"\bCaught (?P<exc>\w{1,40}) in pin memory thread for device (?P<dev>\d{1,3})\b")
# RuntimeError: Pin memory thread exited unexpectedly        (dataloader.py _MultiProcessingDataLoaderIter._get_data)
_PIN_EXITED = re.compile(r"\bPin memory thread exited unexpectedly")
# the traceback's last line, the thread's own exception: "RuntimeError: CUDA error: out of memory",
# "RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingHostAllocator.cpp:278" (1.x)
_EXC_LINE = re.compile(r"^\s{0,8}(?:[\w.]{1,60}\.)?(?P<name>\w{1,40}(?:Error|Exception)): (?P<text>\S.{0,300})$")
_PINNED_OOM = re.compile(r"\bout of memory\b|cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY")
# RuntimeError: DataLoader worker (pid(s) 16732) exited unexpectedly      (xuebinqin/BASNet#32)
# RuntimeError: DataLoader worker (pid(s) 10116, 14052) exited unexpectedly
# RuntimeError: DataLoader worker (pid 109) exited unexpectedly with exit code 1. Details are lost due to multiprocessing. Rerunning with num_workers=0 may give better error trace.
#   (torch/csrc/DataLoader.cpp errorIfAnyWorkerFails, a worker that exited with a non-zero code)
_WORKER_EXITED = re.compile(r"\bDataLoader worker \(pid(?:\(s\))? (?P<pids>\d{1,10}(?:, ?\d{1,10}){0,63})\) exited unexpectedly"
                            r"(?: with exit code (?P<code>-?\d{1,4})\b)?")
_MARK = re.compile(r"DataLoader timed out after |Communication with the workers is no longer possible| in pin memory thread for device "
                   r"|Pin memory thread exited unexpectedly| items of ancdata|\) exited unexpectedly")
_ORIGINAL_SPAN = 120  # lines after the Caught line where its original traceback ends


def detect(head: str) -> bool:
    return any(p.search(head) is not None for p in SIGNATURES)


def _original_error(lines: list[str], n: int) -> str | None:
    """The pin-memory thread's own exception line: the first exception line after its "Original Traceback" (line
    ``n``, 1-based, holds the Caught line) that is not another Caught line, within the span."""
    for line in lines[n: n + _ORIGINAL_SPAN]:
        if (m := _EXC_LINE.match(line)) is not None and not m["text"].startswith("Caught "):
            return f"{m['name']}: {m['text'].strip()}"
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines(_MARK, artefact):
        if (m := _TIMEOUT.search(line)) is not None:
            fb.add(DataLoaderFailure, n, event="timeout", seconds=float(m["s"]))
        elif _FD_LIMIT.search(line) is not None or _ANCDATA.search(line) is not None:
            fb.add(DataLoaderFailure, n, event="open_files_limit")
        elif (m := _PIN_THREAD.search(line)) is not None:
            err = _original_error(artefact.lines, n)
            fb.add(DataLoaderFailure, n, event="pin_memory_thread", device=int(m["dev"]), error=err,
                   pinned_alloc_failed=err is not None and _PINNED_OOM.search(err) is not None)
        elif _PIN_EXITED.search(line) is not None:
            fb.add(DataLoaderFailure, n, event="pin_memory_thread_exited")
        elif (m := _WORKER_EXITED.search(line)) is not None:
            fb.add(DataLoaderWorkerExited, n, pids=m["pids"].replace(" ", ""),
                   exit_code=int(m["code"]) if m["code"] else None)
        else:
            continue
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_TIMEOUT, _FD_LIMIT, _PIN_THREAD, _PIN_EXITED, _ANCDATA, _WORKER_EXITED)

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
  shared tensor).

Sample lines (real: public repositories' notes and code comments quoting them, found with the code
index's exact-string search)::

    RuntimeError: DataLoader timed out after 120 seconds
    RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the limit using `ulimit -n` in the shell or change the sharing strategy by calling `torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code

Facts: ``dataloader_failure`` per line (``event`` ``timeout`` with the seconds, or ``open_files_limit``).
A worker killed by a signal (``DataLoader worker (pid N) is killed by signal: ...``) is torch_log's
``dataloader_worker_killed``. Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import DataLoaderFailure  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "torch_dataloader"

# RuntimeError: DataLoader timed out after 120 seconds
# RuntimeError: DataLoader timed out after 1800.0 seconds          (a float timeout, as formatted)
_TIMEOUT = re.compile(r"\bDataLoader timed out after (?P<s>\d{1,9}(?:\.\d{1,6})?) seconds")
# RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the limit ...
_FD_LIMIT = re.compile(r"\bToo many open files\. Communication with the workers is no longer possible")
_MARK = re.compile(r"DataLoader timed out after |Communication with the workers is no longer possible")


def detect(head: str) -> bool:
    return _TIMEOUT.search(head) is not None or _FD_LIMIT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines(_MARK, artefact):
        if (m := _TIMEOUT.search(line)) is not None:
            fb.add(DataLoaderFailure, n, event="timeout", seconds=float(m["s"]))
        elif _FD_LIMIT.search(line) is not None:
            fb.add(DataLoaderFailure, n, event="open_files_limit")
        else:
            continue
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_TIMEOUT, _FD_LIMIT)

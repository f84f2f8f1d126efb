"""Python's ``subprocess.CalledProcessError`` message, which launchers print when the process
they started failed (accelerate's ``simple_launcher``, DeepSpeed's launcher, the pre-1.9
``torch.distributed.launch``: each raises it with the child's return code), so it is looked
for anywhere in a file.

CPython (Lib/subprocess.py, ``CalledProcessError.__str__``) writes ``Command '%s' died with
%r.`` for a child killed by a signal (``%r`` of ``signal.Signals``: ``<Signals.SIGKILL: 9>``),
``Command '%s' died with unknown signal %d.`` for a number without a name, and ``Command '%s'
returned non-zero exit status %d.`` otherwise. Sample line (real, from the public thread named)::

    subprocess.CalledProcessError: Command '['/usr/bin/python3', '-m', 'autotrain.trainers.clm', '--training_config', 'autotrain-LLM/training_params.json']' died with <Signals.SIGKILL: 9>.    (huggingface/autotrain-advanced#456)

Facts: ``launched_process_killed`` per child killed by a signal (its name and number, the
command as printed). A non-zero exit status says only that the child failed, which the rest of
the log explains; it is not read here. Empty input, or no such message: nothing.
"""
from __future__ import annotations

import re
from typing import Literal

from stethoscope.facts.model import Fact, fact_kind
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "subprocess_error"

# subprocess.CalledProcessError: Command '['/usr/bin/python3', '-m', 'autotrain.trainers.clm', ...]' died with <Signals.SIGKILL: 9>.
# Command 'x' died with unknown signal 77.      (CPython's form for a number signal.Signals does not name)
_DIED = re.compile(
    r"Command '(?P<cmd>[^\n]{0,2000}?)' died with (?:<Signals\.(?P<name>SIG[A-Z0-9]{1,10}): (?P<num>\d{1,3})>"
    r"|unknown signal (?P<unum>\d{1,3}))\.")


@fact_kind
class LaunchedProcessKilled(Fact):
    """A process a Python launcher started was killed by a signal (CalledProcessError)."""

    kind: Literal["launched_process_killed"] = "launched_process_killed"
    signal: str | None = None  # "SIGKILL"; None for a number without a name
    signum: int  # 9
    command: str  # the command as the exception printed it


def detect(head: str) -> bool:
    return "' died with " in head and _DIED.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, m in iter_matches(_DIED, artefact):
        result.lines_used += 1
        fb.add(LaunchedProcessKilled, n, signal=m["name"], signum=int(m["num"] or m["unum"]), command=m["cmd"])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"' died with (?:<Signals\.|unknown signal )",)

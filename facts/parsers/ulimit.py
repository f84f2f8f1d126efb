"""Process resource limits as shells and the kernel print them: ``ulimit -a`` (bash, zsh,
busybox ash/hush, dash), ``ulimit -l`` with its answer, and ``cat /proc/<pid>/limits``.

The forms, from each tool's own source:

- bash (builtins/ulimit.def ``printone``: ``"%-20s %20s"`` of the description and
  ``"(%s, -%c) "`` / ``"(-%c) "``, then the value or ``unlimited``)::

      max locked memory       (kbytes, -l) 64
      open files                      (-n) 1024

- busybox ash/hush (shell/shell_common.c: ``"%-32s(-%c) "``, the unit inside the description)::

      max locked memory (kb)          (-l) 64

- zsh (Src/Builtins/rlimits.c: ``"-%c: %-32s"``)::

      -l: locked-in-memory size (kbytes) 64

- dash and other ash descendants (src/miscbltin.c: ``"%-20s "`` of ``locked memory(kbytes)``;
  later releases put ``-l: `` before it)::

      locked memory(kbytes) 64

- ``/proc/<pid>/limits`` (fs/proc/base.c ``proc_pid_limits``: ``"%-25s %-20s %-20s %-10s"``,
  soft and hard limit, the unit)::

      Max locked memory         65536                65536                bytes

- ``ulimit -l`` (any of these shells: kbytes) on its own line, its answer on the next::

      $ ulimit -l
      64

Sample content (tensorflow/tensorflow#11392, a reviewer's ``ulimit -l`` and ``ulimit -a``;
fixtures/artefacts/ulimit/README.md names the others).

Facts: ``resource_limit`` per limit line: ``resource`` (the RLIMIT_ name lowercased: memlock,
nofile, stack, nproc, core, ...; else the printed description), ``value`` as printed (the soft
limit of /proc's two), ``unlimited``, ``limit_bytes`` for limits of memory (kbytes, kb, bytes),
``source`` (bash | ash | zsh | dash | proc_limits | ulimit_l). What a limit means for GPU and RDMA
work is for rules (rules/network/memlock_limit_too_low.yaml). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import ResourceLimit  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "ulimit"

_VAL = r"(?P<val>\d+|unlimited|hard|soft)"
# max locked memory       (kbytes, -l) 64           open files                      (-n) 1024      (bash)
# max locked memory (kb)          (-l) 64                                                           (busybox)
#   (desc bounded, the blanks after it possessive: unbounded, each end of desc in a run of blanks rescanned the run)
_BASH = re.compile(r"^\s*(?P<desc>[A-Za-z][A-Za-z -]{0,60}?)(?: \((?P<dunit>kb|bytes|blocks|seconds)\))?\s++"
                   r"\((?:(?P<unit>[\w ]+), )?-(?P<opt>[A-Za-z])\)\s+" + _VAL + r"\s*$")
# -l: locked-in-memory size (kbytes) 64      -n: file descriptors               1024      (zsh)
# -l: locked memory(kbytes)   64                                                          (dash with letters)
_LETTER = re.compile(r"^\s*-(?P<opt>[A-Za-z]): (?P<desc>[A-Za-z][A-Za-z -]*?)(?P<sp> )?(?:\((?P<dunit>[a-z ]+)\))?\s+" + _VAL + r"\s*$")
# locked memory(kbytes) 64        nofiles              1024      (dash, no letters: its fixed names only)
_DASH_NAMES = r"time|file|data|stack|coredump|memory|locked memory|process|nofiles|vmemory|locks|rtprio"
_DASH = re.compile(r"^\s*(?P<desc>" + _DASH_NAMES + r")"
                   r"(?:\((?P<dunit>[a-z]+)\))?\s+" + _VAL + r"\s*$")
# Max locked memory         65536                65536                bytes
_PROC = re.compile(r"^\s*(?P<desc>Max [a-z ]*[a-z])\s{2,}(?P<val>\d+|unlimited)\s+(?P<hard>\d+|unlimited)(?:\s+(?P<unit>[a-z]+))?\s*$")
_PROC_HEADER = re.compile(r"^\s*Limit\s+Soft Limit\s+Hard Limit\s+Units\b")
# $ ulimit -l        ulimit -S -l        [user@node ~]$ ulimit -Hl
_ULIMIT_L = re.compile(r"^(?:.*?[$#%>]\s*)?ulimit\s+(?:-[SH]\s+)?-[SH]?l\s*$")
_VALUE_ONLY = re.compile(r"^\s*(?P<val>\d+|unlimited)\s*$")
# every form's locked-memory line (a ulimit -a output always has one on Linux), and ulimit -l with its answer
_DETECT = re.compile(r"^\s*max locked memory\s+(?:\(kb\)\s+)?\((?:kbytes, )?-l\)|^\s*-l: locked|^\s*locked memory\(kbytes\)\s"
                     r"|^\s*Max locked memory\s{2,}(?:\d|unlimited)|ulimit\s+(?:-[SH]\s+)?-[SH]?l[ \t]*\r?\n[ \t]*(?:\d+|unlimited)[ \t]*$",
                     re.M)

#: description words -> RLIMIT_ name (bash, busybox, zsh, dash, /proc/<pid>/limits)
_RESOURCES = (
    ("memlock", re.compile(r"^(?:max )?locked(?:-in)?[- ]memory|^Max locked memory")),
    ("nofile", re.compile(r"open files|^nofiles|file descriptors")),
    ("stack", re.compile(r"stack")),
    ("nproc", re.compile(r"user processes|^process|^processes|^Max processes")),
    ("core", re.compile(r"core")),
    ("as", re.compile(r"virtual memory|^vmemory|address space")),
    ("rss", re.compile(r"max memory size|resident set|^memory$|^memoryuse")),
    ("data", re.compile(r"data")),
    ("fsize", re.compile(r"^file size|^file$|^Max file size")),
    ("cpu", re.compile(r"cpu time|^time$")),
    ("sigpending", re.compile(r"pending signals")),
    ("msgqueue", re.compile(r"message queue|msgqueue")),
    ("rtprio", re.compile(r"real-time priority|^rtprio|realtime priority")),
    ("nice", re.compile(r"scheduling priority|nice priority")),
    ("locks", re.compile(r"file locks|^locks$")),
    ("pipe", re.compile(r"pipe size")),
)
_BYTES = {"kbytes": 1024, "kb": 1024, "bytes": 1}


def detect(head: str) -> bool:
    if "locked memory" not in head and "locked-in-memory" not in head and "ulimit" not in head:
        return False
    return _DETECT.search(head) is not None


def _resource(desc: str) -> str:
    return next((name for name, words in _RESOURCES if words.search(desc)), desc.strip().lower())


def _add(b: FactBuilder, n: int, desc: str, value: str, unit: str | None, source: str) -> None:
    resource = _resource(desc)
    unlimited = value == "unlimited"
    factor = _BYTES.get((unit or "").strip().lower())
    size = int(value) * factor if factor and value.isdigit() else None
    b.add(ResourceLimit, n, resource=resource, value=value, unlimited=unlimited, limit_bytes=size, source=source)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    lines = artefact.lines
    asked_l: int | None = None  # the line of a bare `ulimit -l` whose answer comes next
    for n, line in enumerate(lines, 1):
        if asked_l is not None and line.strip():
            if (m := _VALUE_ONLY.match(line)) is not None:
                _add(b, n, "max locked memory", m["val"], "kbytes", "ulimit_l")
                result.lines_used += 2
            asked_l = None
            continue
        if _ULIMIT_L.match(line):
            asked_l = n
        elif (m := _BASH.match(line)) is not None:
            busybox = m["dunit"] is not None and m["unit"] is None
            _add(b, n, m["desc"], m["val"], m["unit"] or m["dunit"], "ash" if busybox else "bash")
        elif (m := _LETTER.match(line)) is not None:
            # zsh: "locked-in-memory size (kbytes)", "file descriptors"; dash: "locked memory(kbytes)", "nofiles"
            dash = (m["dunit"] and not m["sp"]) or (not m["dunit"] and re.fullmatch(_DASH_NAMES, m["desc"]))
            _add(b, n, m["desc"], m["val"], m["dunit"], "dash" if dash else "zsh")
        elif (m := _DASH.match(line)) is not None:
            _add(b, n, m["desc"], m["val"], m["dunit"], "dash")
        elif (m := _PROC.match(line)) is not None:
            _add(b, n, m["desc"], m["val"], m["unit"], "proc_limits")
        elif _PROC_HEADER.match(line):
            pass
        else:
            continue
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)

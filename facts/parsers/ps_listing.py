"""``ps`` listings with a state column (``ps aux``, ``ps ax``, ``ps -eo pid,stat,wchan,cmd``, ``ps -l``): the tasks in
uninterruptible sleep (state ``D``), what people paste beside a hang.

The header is procps' column titles (procps ps/output.c format_array: ``stat`` -> ``STAT``, ``s`` / ``state`` -> ``S``,
``wchan`` -> ``WCHAN``, ``pid`` -> ``PID``, ``user`` -> ``USER``, ``cmd`` -> ``CMD``, ``args`` / ``comm`` / ``command`` ->
``COMMAND``), one row per task, the command last and the only column with blanks. A state starts with the letter of
fs/proc/array.c's task_state_array (``D`` uninterruptible sleep, ``R``, ``S``, ``T``, ``Z``, ...), BSD's STAT adding flags
(``s`` session leader, ``l`` threaded, ``+`` foreground, ``<``, ``N``). Sample content (real, microsoft/DLWorkspace#484: a
pod's init script stuck writing to NFS, its stack pasted below it)::

    root@dltsw7be500001T:/tmp/sample_repo_files# ps aux | cat
    USER        PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
    root          1  0.0  0.0  19040  3968 ?        Ss   01:35   0:00 bash /pod/scripts/bootstrap.sh
    root       1054  0.0  0.0  19040  3560 ?        D    01:35   0:00 bash /pod/scripts/init_user.sh

and ``ps -eo pid,stat,wchan,cmd``'s (CONSTRUCTED from procps' titles; WCHAN the kernel function, ``-`` for a running task)::

        PID STAT WCHAN  CMD
       1054 D    nfs_wait_bit_killable bash /pod/scripts/init_user.sh

Fact: one ``process_uninterruptible`` per row in state D (pid, state, WCHAN where the listing has it, the command, the
user); the other rows are read and make none. A header with a column whose values hold blanks before the command
(``lstart``'s STARTED) is not read. Text without such a header is not this reader's.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import ProcessUninterruptible  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "ps_listing"

# USER        PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND        PID TTY      STAT   TIME COMMAND
#     PID STAT WCHAN  CMD                                                          F S   UID     PID    PPID  C PRI  NI ADDR SZ WCHAN  TTY          TIME CMD
# a title row of procps' column titles: PID, a state column (STAT or S), and the command (CMD / COMMAND) last; read by its
# words (_is_header), each a title
_TITLE = re.compile(r"^[A-Z%_]{1,8}$")
# a state: task_state_array's letter, then BSD's flags
_STATE = re.compile(r"^[RSDTtZXxKWPI][<NLsl+]{0,5}$")


def _is_header(line: str) -> bool:
    cols = line.split()
    return (3 <= len(cols) <= 30 and cols[-1] in ("CMD", "COMMAND") and "PID" in cols and ("STAT" in cols or "S" in cols)
            and all(_TITLE.match(c) for c in cols))


def detect(head: str) -> bool:
    return ("PID" in head and ("CMD" in head or "COMMAND" in head)
            and any(_is_header(line) for line in head.splitlines() if "PID" in line))


def _columns(header: str) -> list[str] | None:
    cols = header.split()
    if "STARTED" in cols or cols.count("PID") != 1:
        return None  # lstart's date holds blanks: the rows cannot be split by them
    return cols


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    cols: list[str] | None = None
    for n, line in enumerate(artefact.lines, 1):
        if "PID" in line and _is_header(line):
            cols = _columns(line)
            if cols is not None:
                result.lines_used += 1
            continue
        if cols is None:
            continue
        cells = line.split(None, len(cols) - 1)
        if len(cells) != len(cols) or not cells[cols.index("PID")].isdigit():
            cols = None  # the listing ended (a prompt, another command's output)
            continue
        row = dict(zip(cols, cells))
        state = row.get("STAT") or row.get("S") or ""
        if _STATE.match(state) is None:
            cols = None
            continue
        result.lines_used += 1
        if state[0] != "D":
            continue
        wchan = row.get("WCHAN")
        b.add(ProcessUninterruptible, n, pid=int(row["PID"]), stat=state, wchan=None if wchan in (None, "-") else wchan,
              command=row.get("COMMAND") or row.get("CMD") or "", user=row.get("USER"))
    return result


#: the line signatures this reader owns
SIGNATURES = (r"(?m)\bPID\b[^\n]*\b(?:STAT|S)\b[^\n]*\b(?:CMD|COMMAND)[ \t]*$",)

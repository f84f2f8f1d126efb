"""The memory budget of one diagnosis, and the limits it sets on reading.

A diagnosis holds at most one *window* of a file's text per parsing process, never a whole
large file nor a whole archive; the sizes below follow from the budget (``steth diagnose
--max-memory``, default 1 GB) so that the process tree stays inside it:

- ``window_chars``: a file larger than this is read as consecutive windows of whole lines,
  decoded incrementally, each parsed on its own (facts keep the file's line numbers);
- ``inflight_chars``: the text handed to parse workers and not yet parsed, all workers together;
- ``jobs``: parse processes, fewer than the CPUs when the budget cannot hold more;
- ``max_line_chars``: a longer line is cut there (the rest of it is not read);
- ``FACTS_PER_KIND``: facts of one kind one file may give; past it they are counted, not kept;
- ``answer_bytes``, ``run_answer_bytes``: the body of one HTTP answer (a Prometheus query),
  and of all the answers of a live run together, decoded; a larger one is not read on.

Every limit that bites is recorded as a :class:`Hit` and reported in the coverage
(``coverage.limits``): what was not read in full is never silent.
"""
from __future__ import annotations

from dataclasses import dataclass

MIB = 1 << 20
DEFAULT_MAX_MEMORY = 1_000_000_000
#: below this a diagnosis cannot run at all: the interpreter, the rules and durable take it
MIN_MAX_MEMORY = 256 * MIB
#: what one process costs before it reads anything (interpreter, parsers, rules)
PROCESS_COST = 160 * MIB
#: what one parse worker adds before it reads anything: forked from the main process once its
#: parsers and their classifier are built and frozen out of the collector's reach
#: (engine/parse_pool.parse_files), it shares them and copies only the pages it writes. Measured
#: (a worker's Pss and Private_Dirty, smaps_rollup, sampled every 0.2 s over a diagnosis): 61-62
#: and 37 MB at 128 bench nodes (2 workers, 2-core VM; before the freeze 79-83 and 62-68 MB); what
#: one more worker adds to the whole tree's Pss, 1,024 bench nodes on a 16-core host (session 33):
#: 5 workers 788 MB, 8 workers 901 MB, 38 MB a worker (its pages the others share count once).
#: Session 40, once the classifier's DFA is built before the fork and shared (parse_pool.warm_up):
#: 1,024 bench nodes on a 16-core H100 host, 8 / 10 / 12 workers 862-875 / 923-927 / 991-994 MB,
#: 31 MB a worker (256 nodes on the 2-core VM: 2 / 4 / 6 / 8 workers 306-308 / 378 / 446-447 / 500
#: MB, 32 MB a worker); the budget then holds 10 workers there (tree 923-927 MB)
WORKER_COST = 32 * MIB
#: what the main process comes to hold per byte of text read (the facts kept, their evidence, the
#: coverage), beyond PROCESS_COST: the workers the budget allows are what is left beside it.
#: Measured on 1,024 bench nodes (1,340 MB; the tree's Pss 788 MB with 5 workers of 38-55 MB:
#: the main process ~510-600 MB, 0.25-0.32 a byte): the upper figure
KEPT_PER_BYTE = 0.32
#: evidence quotes at most this much of a line (the rest is counted, see :func:`cut`)
EVIDENCE_CHARS = 4096
#: a parse problem's message is cut here
MESSAGE_CHARS = 512
#: facts of one kind that one file (one window of a large file) may give; the rest are
#: counted (250k distinct NCCL WARN lines are 20,000 facts and a count, not 250k facts)
FACTS_PER_KIND = 20_000


@dataclass(frozen=True)
class Hit:
    """One limit that bit: which, where (``line`` 0: the whole file), what was not read."""

    limit: str
    path: str
    line: int
    detail: str


@dataclass(frozen=True)
class Budget:
    max_memory: int = DEFAULT_MAX_MEMORY

    @property
    def window_chars(self) -> int:
        return max(MIB, min(64 * MIB, self.max_memory // 48))

    @property
    def inflight_chars(self) -> int:
        return 2 * self.window_chars

    @property
    def max_line_chars(self) -> int:
        return max(64 * 1024, min(MIB, self.window_chars // 4))

    @property
    def answer_bytes(self) -> int:
        """An answer's JSON costs up to 16 times its size while it becomes samples (measured:
        about 9.5 times at its peak as Python objects, then about 6 as (time, value) pairs), and
        two answers are read at once (engine/live/observe.py DEFAULT_CONCURRENCY): half the budget."""
        return max(4 * MIB, self.max_memory // 64)

    @property
    def run_answer_bytes(self) -> int:
        """All the answers of one live run: the samples kept from them (about 6 times their
        JSON) stay within half the budget."""
        return max(4 * self.answer_bytes, self.max_memory // 12)

    def jobs(self, wanted: int, total_bytes: int | None = None, largest: int | None = None) -> int:
        """Parse processes the budget holds: the main process (PROCESS_COST, and KEPT_PER_BYTE of
        ``total_bytes``, the bundle's text, when known: what it will hold of it), then per worker
        its cost (a forked worker's, WORKER_COST) and a window in parsing (about four times the
        window's text: lines, normalised copy, facts), or four times the ``largest`` file where that
        is known and smaller (a worker never holds more of a file than the file)."""
        window = self.window_chars if largest is None else max(1, min(self.window_chars, largest))
        per_worker = WORKER_COST + 4 * window
        room = self.max_memory - PROCESS_COST - self.inflight_chars - int(KEPT_PER_BYTE * (total_bytes or 0))
        return max(1, min(wanted, room // per_worker))


DEFAULT = Budget()


def parse_size(text: str) -> int:
    """'1G', '1.5GB', '800M', '750MiB', '1000000000' -> bytes (powers of 1000 for G/M/K,
    of 1024 for GiB/MiB/KiB). Raises ValueError."""
    t = text.strip().upper().replace(" ", "")
    units = {"KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "KB": 10**3, "MB": 10**6, "GB": 10**9,
             "K": 10**3, "M": 10**6, "G": 10**9, "B": 1}
    for unit, mult in units.items():
        if t.endswith(unit):
            return int(float(t[: -len(unit)]) * mult)
    return int(float(t))


def cut(text: str, limit: int = EVIDENCE_CHARS) -> str:
    """``text`` cut at ``limit`` characters, with its original length noted."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} ... [line cut: {len(text):,} characters]"

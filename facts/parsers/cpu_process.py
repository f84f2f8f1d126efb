"""The per-task CPU fact shared by the ``top`` and ``pidstat`` parsers.

Sample rows it is made from (``top -b`` process table; ``pidstat -u -t``)::

     220417 train     20   0   41.3g   9.8g   1.1g R 100.0   1.9 112:41.78 python
    14:02:11     1000         -    220417   99.00    1.00    0.00    0.00  100.00     3  |__python

Both tools give a task's %CPU as a share of ONE core (top in its default Irix mode), so a
single-threaded step that holds one core shows about 100 %, and a thread can never show more.
"""
from __future__ import annotations

from typing import Literal

from stethoscope.facts.model import Fact, fact_kind


@fact_kind
class CpuProcessSample(Fact):
    """One process (or, with ``pidstat -t`` / ``top -H``, one thread) and its share of one core."""

    kind: Literal["cpu_process_sample"] = "cpu_process_sample"
    pid: int  # the process (pidstat's TGID for a thread row)
    tid: int | None = None  # set on thread rows only
    command: str
    cpu_pct: float  # % of one core: mean over the interval rows, or the Average row
    max_cpu_pct: float  # busiest interval row
    last_cpu: int | None = None  # the core it last ran on (pidstat's CPU column, top's P)
    samples: int
    host_cpus: int | None = None  # cores of the host, when the capture says
    # the whole host's busy share over the same period (top: mean of its %CpuN lines or
    # 100 - %Cpu(s) id; pidstat: the tasks' summed %CPU over host_cpus); None when unknown
    host_busy_pct: float | None = None
    tool: str  # "top" or "pidstat"

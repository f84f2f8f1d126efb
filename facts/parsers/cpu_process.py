"""The per-task CPU fact shared by the ``top`` and ``pidstat`` parsers.

Sample rows it is made from (``top -b`` process table; ``pidstat -u -t``)::

     220417 train     20   0   41.3g   9.8g   1.1g R 100.0   1.9 112:41.78 python
    14:02:11     1000         -    220417   99.00    1.00    0.00    0.00  100.00     3  |__python

Both tools give a task's %CPU as a share of ONE core (top in its default Irix mode), so a
single-threaded step that holds one core shows about 100 %, and a thread can never show more.
"""
from __future__ import annotations

from stethoscope.facts.kinds.host import CpuProcessSample  # noqa: F401 - the fact classes live in facts/kinds

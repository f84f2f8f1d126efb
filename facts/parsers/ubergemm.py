"""ubergemm, the GEMM stress binary of DCGM's validation suite (``/usr/share/nvidia-validation-suite/
plugins/cudaNN/ubergemm --adapters 0,1,... --time_to_run N``), one result line per GPU on stdout.

Sample content (real: NVIDIA/DCGM#122, a DGX A100-40G whose GPU 0 ran at a third of its peers)::

    time /usr/share/nvidia-validation-suite/plugins/cuda12/ubergemm --adapters 0,1,2,3,4,5,6,7 --time_to_run 10 --internal_loops=100 | grep GFlops
    GEMM [I] (ADAPTER#0)  Ending with 6698.442948608 GFlops
    GEMM [I] (ADAPTER#2)  Ending with 19239.381499904 GFlops

Facts: ``bench_result`` per adapter (benchmark ``ubergemm``, test ``gemm``, entity ``gpu<n>``, metric
``gflops``), the last line of an adapter when a log repeats it. A reading: a GPU far below its peers
is judged from the figures of the same node (engine/baselines/bench.py ``peers``). Text without such
lines yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.bench_facts import BenchResult

KIND = "ubergemm"

# GEMM [I] (ADAPTER#0)  Ending with 6698.442948608 GFlops
_END = re.compile(r"GEMM \[I\] \(ADAPTER#(?P<gpu>\d+)\)\s+Ending with (?P<rate>\d+(?:\.\d+)?) GFlops")


def detect(head: str) -> bool:
    return "Ending with" in head and _END.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    last: dict[int, tuple[int, float]] = {}
    for n, line in enumerate(artefact.lines, 1):
        if "Ending with" in line and (m := _END.search(line)) is not None:
            last[int(m["gpu"])] = (n, float(m["rate"]))
            result.lines_used += 1
    for gpu in sorted(last):
        n, rate = last[gpu]
        fb.add(BenchResult, n, benchmark="ubergemm", test="gemm", entity=f"gpu{gpu}", metric="gflops",
               value=round(rate, 1), unit="Gflop/s", detail=f"ADAPTER#{gpu}")
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_END,)

"""gpu-burn (https://github.com/wilicc/gpu-burn): ``./gpu_burn [-d] [-tc] SECONDS`` on stdout.

Sample content (superbenchmark tests/data/gpu_burn.log, 8 x A100; wilicc/gpu-burn#12, 16 GPUs FAULTY)::

    GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-b876c63f-396c-f826-5cd0-6b8409990352)
    Initialized device 0 with 81251 MB of memory (80493 MB available, using 72443 MB of it), using DOUBLES, using Tensor Cores
    50.0%  proc'd: 2261 (7150 Gflop/s) - 0 (0 Gflop/s)   errors: 0 - 0   temps: 38 C - 36 C
    100.0%  proc'd: 18000 (6311 Gflop/s) - 12600 (6440 Gflop/s)   errors: 0 - -524288000  (WARNING!)   temps: 51 C - 45 C
    Tested 8 GPUs:
    	GPU 0: OK
            GPU 1: FAULTY

A progress record is one ``proc'd: ... errors: ... temps: ...`` group per GPU in order; a
captured terminal may hold many records on one line (carriage returns lost), so records are
found anywhere on a line. Facts: ``bench_result`` per GPU (metric ``gflops``: the median of
its non-zero rates over all records, the evidence the last record; the test names the
precision, ``fp32``/``fp64`` with ``_tc`` for tensor cores, from the ``Initialized`` line), and
``gpu_burn_verdict`` per ``GPU N: OK|FAULTY`` line of the closing summary with the largest
error count the GPU's progress showed and whether it ``DIED``. A run cut short has rates
but no verdicts. Text without these lines yields nothing.

A verdict's ``processed`` is the GPU's count of multiplications in its run's last progress
record, None where its run printed none. gpu-burn prints ``OK`` for every GPU whose error count
is zero (gpu_burn-drv.cpp listenClients: ``printf("\tGPU %d: %s\n", (int)i, clientFaulty.at(i) ?
"FAULTY" : "OK")``), and a progress record only once a worker reported (``// Printing progress (if
a child has initted already)``): an ``OK`` without a record is a run that compared nothing
(wilicc/gpu-burn#124's A2000: no progress line, ``GPU 0: OK``), as is one whose GPU processed 0
(gpu-burn#14's init error, "prints OK at the end"); knowledge/coverage.yaml counts neither as a
check. Each run starts with ``nvidia-smi -L``'s listing (``launch``: ``system("nvidia-smi -L")``):
a listing line after a progress record or a verdict, or of a GPU listed already, starts the next
run (two runs pasted one after the other, #124's A500 and A2000, are not one GPU's).

A worker that could not run its test says so on stderr, which a capture interleaves with the
progress (wilicc/gpu-burn#52, a K80 host: its GPU 0's worker never started, the parent's read of its
closed pipe printed ``read[0] error 0`` and the progress ``-1 (0 Gflop/s)`` with a garbage count
``(DIED!)``)::

    Couldn't init a GPU test: Error in "load module": 
    50.0%  proc'd: -1 (0 Gflop/s) - 0 (0 Gflop/s)   errors: 1641686072  (DIED!)- 0   temps: 33 C - 29 C

gpu_burn-drv.cpp: ``fprintf(stderr, "Couldn't init a GPU test: %s\n", e.what())`` (the GPU_Test
constructor or initBuffers threw), ``"Couldn't init CUDA: %s\n"``, ``"Failure during compute: %s\n"``,
``"\n\nNo clients are alive!  Aborting\n"``; checkError's message is ``Error in "<step>": <name>``
(the CUDA_ERROR_* name, empty for a code its table lacks) up to 2023-03, ``Error in <step>
(<file>:<line>): <cuGetErrorString>`` since, ``Error: ...`` / ``Error (<file>:<line>): ...`` without a
step. Each is a ``gpu_burn_worker_failure`` with the GPUs its run showed ``(DIED!)``; a verdict of a GPU
that died without a count of work in a run whose worker could not start is ``never_started`` (gpu-burn
prints FAULTY for it: its error count is what the parent read from a closed pipe). A progress record
cut at the text's last line is the capture's end (``cut_short``), not a problem.
"""
from __future__ import annotations

import re
import statistics

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.bench_facts import BenchResult, GpuBurnVerdict, GpuBurnWorkerFailure

KIND = "gpu_burn"

# GPU 0: NVIDIA GeForce GTX 1080 (UUID: GPU-70f352d1-aa4f-6f8a-2033-f8dff3dca024)
_GPU = re.compile(r"^GPU (?P<gpu>\d+): (?P<name>.+?) \(UUID: (?P<uuid>GPU-[0-9a-fA-F-]+)\)\s*$")
# Initialized device 0 with 81251 MB of memory (80493 MB available, using 72443 MB of it), using DOUBLES, using Tensor Cores
_INIT = re.compile(r"Initialized device (?P<gpu>\d+) with \d+ MB of memory .*?using (?P<prec>FLOATS|DOUBLES)(?P<tc>, using Tensor Cores)?")
# 100.0%  proc'd: 636 (2085 Gflop/s)   errors: 0   temps: 64 C
# the runs are bounded (1,000 characters: 16 GPUs' figures are ~400): unbounded lazy ones scanned to
# the line's end once per "proc'd:" of a long line with a record cut short (minutes); the blanks before
# "errors:" and "temps:" bounded too (gpu-burn prints three): unbounded, each step of the lazy run into a long
# run of blanks scanned the whole run (0.35 s on bench/redos.py's line split by 30,000 blanks, now 2 ms)
_RECORD = re.compile(r"(?P<pct>\d+(?:\.\d+)?)%\s+proc'd: (?P<procd>.{0,1000}?)\s{1,100}errors: (?P<errors>.{0,1000}?)\s{1,100}temps: (?P<temps>(?:-?\d+ C(?: - )?)+)")
# 2261 (7150 Gflop/s)
_RATE = re.compile(r"(-?\d+) \((\d+(?:\.\d+)?) Gflop/s\)")
# -524288000  (WARNING!)   /   1579  (DIED!)   /   0
_ERR = re.compile(r"(-?\d+)\s*(\((?:WARNING|DIED)!\))?")
# Tested 16 GPUs:
_TESTED = re.compile(r"^Tested (?P<n>\d+) GPUs:\s*$")
# 	GPU 0: OK
_VERDICT = re.compile(r"^\s+GPU (?P<gpu>\d+): (?P<status>OK|FAULTY)\s*$")
# Couldn't init a GPU test: Error in "load module":                                   (wilicc/gpu-burn#52, before 2023-03)
# Couldn't init a GPU test: Error in load module (gpu_burn-drv.cpp:244): device kernel image is invalid    (CONSTRUCTED, the 2023+ form)
# Failure during compute: Error in "Read faultyelemdata": CUDA_ERROR_UNKNOWN                           (CONSTRUCTED: compute's checkError desc "Read faultyelemdata", pre-2023 form)
# (stderr: a line may hold it after another's unfinished text, "... temps: 33 C - 31 C Couldn't init ...")
_WORKER = re.compile(r"(?P<what>Couldn't init a GPU test|Couldn't init CUDA|Failure during compute): (?P<why>.{0,1000}?)\s*$")
_NO_WORKERS = re.compile(r"No clients are alive!\s+Aborting")
# Error in "load module": CUDA_ERROR_NO_BINARY_FOR_GPU   /   Error in load module (gpu_burn-drv.cpp:244): <what CUDA says>   /   Error: CUDA_ERROR_UNKNOWN
_CHECK = re.compile(r"Error(?: in (?:\"(?P<old>[^\"]{1,100})\"|(?P<step>[^()]{1,100}?) \([\w.+-]{1,100}:\d{1,6}\))| \([\w.+-]{1,100}:\d{1,6}\))?: ?(?P<err>.*)$")
_STAGES = {"Couldn't init a GPU test": "test_init", "Couldn't init CUDA": "cuda_init", "Failure during compute": "compute"}
_DETECT = re.compile(r"proc'd: -?\d+ \(\d+(?:\.\d+)? Gflop/s\)|^Tested \d+ GPUs:\s*$|^Initialized device \d+ with \d+ MB of memory"
                     r"|Couldn't init a GPU test: ", re.M)


def detect(head: str) -> bool:
    return ("Gflop/s" in head or "Tested " in head or "Initialized device" in head or "init a GPU test" in head) \
        and _DETECT.search(head) is not None


class _Run:
    """What one run of gpu-burn printed so far."""

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.precision: dict[int, str] = {}
        self.rates: dict[int, list[float]] = {}
        self.errors: dict[int, int] = {}
        self.processed: dict[int, int] = {}
        self.died: set[int] = set()
        self.last_record_line = 0
        self.tested: int | None = None
        self.verdicts: list[tuple[int, int, str]] = []
        self.failures: list[tuple[int, str, str]] = []  # (line, stage, what the worker said)

    def started(self) -> bool:
        return bool(self.last_record_line or self.verdicts or self.tested is not None)


def _failure(line: str) -> tuple[str, str] | None:
    """(stage, what the worker said) of a worker's failure line, None for any other line."""
    if "Couldn't init" in line or "Failure during" in line:
        if (m := _WORKER.search(line)) is not None:
            return _STAGES[m["what"]], m["why"]
    if "No clients" in line and _NO_WORKERS.search(line) is not None:
        return "no_workers", ""
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    run = _Run()
    for n, line in enumerate(artefact.lines, 1):
        if m := _GPU.match(line):
            if run.started() or int(m["gpu"]) in run.names:  # the next run's nvidia-smi -L listing
                _emit(fb, run)
                run = _Run()
            run.names[int(m["gpu"])] = m["name"]
            result.lines_used += 1
            continue
        if (m := _TESTED.match(line)):
            run.tested = int(m["n"])
            result.lines_used += 1
            continue
        if (m := _VERDICT.match(line)):
            run.verdicts.append((n, int(m["gpu"]), m["status"]))
            result.lines_used += 1
            continue
        if (fail := _failure(line)) is not None:
            run.failures.append((n, *fail))
            result.lines_used += 1
            if "proc'd:" not in line:
                continue
        used = False
        for m in _INIT.finditer(line):
            run.precision[int(m["gpu"])] = ("fp64" if m["prec"] == "DOUBLES" else "fp32") + ("_tc" if m["tc"] else "")
            used = True
        if "proc'd:" in line:
            records = list(_RECORD.finditer(line))
            if not records:  # (a record cut by the capture's end: cut_short)
                fb.error_unless_last(n, "gpu-burn progress line without proc'd, errors and temps", "a progress record")
            for m in records:
                for gpu, (procd, gflops) in enumerate(_RATE.findall(m["procd"])):
                    if float(gflops) > 0:
                        run.rates.setdefault(gpu, []).append(float(gflops))
                    if int(procd) >= 0:  # (-1: the worker died, "(DIED!)" below)
                        run.processed[gpu] = max(run.processed.get(gpu, 0), int(procd))
                for gpu, (count, flag) in enumerate(_ERR.findall(m["errors"])):
                    run.errors[gpu] = max(run.errors.get(gpu, 0), abs(int(count)))
                    if flag == "(DIED!)":
                        run.died.add(gpu)
            if records:
                run.last_record_line, used = n, True
        result.lines_used += used
    _emit(fb, run)
    return result


def _emit(fb: FactBuilder, run: _Run) -> None:
    """The facts of one run."""
    for gpu in sorted(run.rates):
        prec = run.precision.get(gpu) or next(iter(run.precision.values()), "gemm")
        fb.add(BenchResult, run.last_record_line, benchmark="gpu_burn", test=prec, entity=f"gpu{gpu}", metric="gflops",
               value=round(statistics.median(run.rates[gpu]), 1), unit="Gflop/s",
               detail=f"{run.names.get(gpu, f'GPU {gpu}')}; median of {len(run.rates[gpu])} progress rates; "
                      f"errors {run.errors.get(gpu, 0)}")
    died = ", ".join(map(str, sorted(run.died))) or None
    for line, stage, why in run.failures:
        m = _CHECK.match(why)
        fb.add(GpuBurnWorkerFailure, line, stage=stage, reason=why.strip(), step=(m["old"] or m["step"]) if m else None,
               error=(m["err"].strip() or None) if m else None, died=died)
    unstarted = any(stage in ("test_init", "cuda_init") for _, stage, _ in run.failures)
    for line, gpu, status in run.verdicts:
        fb.add(GpuBurnVerdict, line, gpu=gpu, gpu_name=f"GPU{gpu}", status=status, errors=run.errors.get(gpu),
               died=gpu in run.died, gpus_tested=run.tested, processed=run.processed.get(gpu),
               never_started=unstarted and gpu in run.died and not run.processed.get(gpu))


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)

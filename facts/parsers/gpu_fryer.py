"""gpu-fryer (https://github.com/huggingface/gpu-fryer): ``gpu-fryer [SECONDS]``, its human output on stdout.

Sample content (huggingface/gpu-fryer#10, 2025-08, 1.0: four GPUs in a bad state that finished no product)::

    GPU #0:      0 Gflops/s (min: 18446744073.71, max: 0.00, dev: 0.00)
             Temperature: 0.00°C (min: 18446744073709551616.00, max: 0.00)
             Throttling HW: false, Thermal SW: false, Thermal HW: false
    All GPUs seem healthy
    Freeing GPUs...

The closing results are three rows per GPU (src/logging.rs LogResults, 1.2; println! in main.rs before it):
the run's average rate with its one-second minimum, maximum and deviation, the temperatures, and whether
the run saw hardware, thermal-software or thermal-hardware throttling. The tool's verdict follows
(LogProblems): ``All GPUs seem healthy``, or ``Some GPUs are not healthy. Reasons:`` and a row per problem,
``  - GPU 1 - GPU is throttled. Check the throttling reasons and temperatures`` (1.0 and 1.2 alike). Before 1.2
(9b18bdd, "handle GPUs reporting 0 FLOPS (NVML wrongly reports them as healthy)", after #10) a GPU that finished
no product was not a problem of its own: the tool judged the rates against the fastest GPU's, 0 against 0, and
said healthy. The reader keeps the rate, so rules judge a zero rate whatever the verdict says.

Facts: ``gpu_fryer_result`` per GPU (its rates, temperature, throttling, the tool's verdict and its reasons for
that GPU) and ``bench_result`` per GPU (benchmark ``gpu_fryer``, test ``gemm``, entity ``gpu<n>``, metric
``gflops``: judged against the node's other GPUs, engine/baselines/bench.py ``peers``). The progress rows
(``1234 (61234 Gflops/s) - ... | Temperatures: ... | Throttling: ...``) and ``--json`` output are not read.
Text without result rows yields nothing; rows without a verdict are a run cut before its end (verdict None).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.bench import GpuFryerResult
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.bench_facts import BenchResult

KIND = "gpu_fryer"

# GPU #0:      0 Gflops/s (min: 18446744073.71, max: 0.00, dev: 0.00)
#   ("GPU #{}: {:6.0} Gflops/s (min: {:.2}, max: {:.2}, dev: {:.2})"; the progress rows say "Gflops/s" too, without "GPU #")
_NUMBER = r"\d+(?:\.\d+)?"  # Rust's {:.2} of an f64: digits, a point and two digits (never two points: float() takes it)
_RESULT = re.compile(r"^GPU #(?P<gpu>\d{1,3}):\s+(?P<avg>" + _NUMBER + r") Gflops/s \(min: (?P<min>" + _NUMBER + r"), max: (?P<max>"
                     + _NUMBER + r"), dev: (?P<dev>" + _NUMBER + r")\)[ \t\r]*$", re.M)
#          Temperature: 0.00°C (min: 18446744073709551616.00, max: 0.00)
_TEMP = re.compile(r"^\s+Temperature: (?P<avg>" + _NUMBER + r")\S{0,3}C \(min: " + _NUMBER + r", max: " + _NUMBER + r"\)\s*$")
#          Throttling HW: false, Thermal SW: false, Thermal HW: false
_THROTTLE = re.compile(r"^\s+Throttling HW: (?P<hw>true|false), Thermal SW: (?P<sw>true|false), Thermal HW: (?P<thw>true|false)\s*$")
# All GPUs seem healthy
_HEALTHY = re.compile(r"^All GPUs seem healthy\s*$")
# Some GPUs are not healthy. Reasons:
_NOT_HEALTHY = re.compile(r"^Some GPUs are not healthy\. Reasons:\s*$")
#   - GPU 1 - GPU is not performing as expected. Check the flops values and temperatures
_PROBLEM = re.compile(r"^\s+- GPU (?P<gpu>\d{1,3}) - (?P<reason>\S.*?)\s*$")
# the reasons' texts (BadResultReasons' Display, 1.2; GPU_FLOPS_REASON and GPU_THROTTLING_REASON before): LowFlops
# "GPU is not performing as expected. Check the flops values and temperatures", Throttling "GPU is throttled. Check the
# throttling reasons and temperatures", ZeroFlops "GPU reported 0 FLOPS, meaning it did not do any work. ..." (the
# zero rate is read from the result row)
_SLOW_REASON = "GPU is not performing as expected"
_THROTTLED_REASON = "GPU is throttled"


def detect(head: str) -> bool:
    return "Gflops/s (min: " in head and _RESULT.search(head) is not None


class _Gpu:
    def __init__(self, line: int, gpu: int, avg: float, best: float) -> None:
        self.line, self.gpu, self.avg, self.best = line, gpu, avg, best
        self.temp: float | None = None
        self.throttle_hw = self.throttle_thermal = False
        self.problems: list[str] = []


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    gpus: dict[int, _Gpu] = {}
    last: _Gpu | None = None
    verdict: str | None = None
    verdict_line = 0
    for n, line in enumerate(artefact.lines, 1):
        if "Gflops/s (min: " in line and (m := _RESULT.match(line)) is not None:
            last = gpus[int(m["gpu"])] = _Gpu(n, int(m["gpu"]), float(m["avg"]), float(m["max"]))
        elif last is not None and "Temperature: " in line and (m := _TEMP.match(line)) is not None:
            last.temp = float(m["avg"])
        elif last is not None and "Throttling HW: " in line and (m := _THROTTLE.match(line)) is not None:
            last.throttle_hw, last.throttle_thermal = m["hw"] == "true", "true" in (m["sw"], m["thw"])
        elif gpus and _HEALTHY.match(line):
            verdict, verdict_line = "healthy", n
        elif gpus and _NOT_HEALTHY.match(line):
            verdict, verdict_line = "not_healthy", n
        elif verdict == "not_healthy" and (m := _PROBLEM.match(line)) is not None and int(m["gpu"]) in gpus:
            gpus[int(m["gpu"])].problems.append(m["reason"])
        else:
            continue
        result.lines_used += 1
    for gpu in sorted(gpus):
        g = gpus[gpu]
        # the evidence is the GPU's result row; the verdict's row is named in the fact's own line numbers
        fb.add(GpuFryerResult, g.line, gpu=gpu, gpu_name=f"GPU{gpu}", gflops=g.avg, gflops_max=g.best,
               temperature_c=g.temp, throttle_hw=g.throttle_hw, throttle_thermal=g.throttle_thermal,
               verdict=verdict if verdict_line > g.line else None, problems="; ".join(g.problems) or None,
               reported_slow=any(p.startswith(_SLOW_REASON) for p in g.problems),
               reported_throttled=any(p.startswith(_THROTTLED_REASON) for p in g.problems))
        fb.add(BenchResult, g.line, benchmark="gpu_fryer", test="gemm", entity=f"gpu{gpu}", metric="gflops",
               value=g.avg, unit="Gflop/s", detail=f"GPU #{gpu}")
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_RESULT,)

"""gpu-fryer reader on its real sample (fixtures/artefacts/gpu_fryer: huggingface/gpu-fryer#10) and on
rows made from its format strings (src/logging.rs LogResults / LogProblems, 1.2)."""
from pathlib import Path

from stethoscope.facts.parsers import gpu_fryer, gpu_burn, ubergemm
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures/artefacts/gpu_fryer/gpufryer10_four_gpus_zero_flops_said_healthy.txt"

# CONSTRUCTED from gpu-fryer 1.2's format strings: two GPUs, one slow and thermally throttled
NOT_HEALTHY = (
    "GPU #0:  61234 Gflops/s (min: 60100.00, max: 62000.50, dev: 310.20)\n"
    "         Temperature: 71.40°C (min: 45.00, max: 78.00)\n"
    "         Throttling HW: false, Thermal SW: false, Thermal HW: false\n"
    "GPU #1:  48011 Gflops/s (min: 40000.00, max: 55000.00, dev: 2900.10)\n"
    "         Temperature: 86.90°C (min: 50.00, max: 91.00)\n"
    "         Throttling HW: false, Thermal SW: true, Thermal HW: false\n"
    "Some GPUs are not healthy. Reasons:\n"
    "  - GPU 1 - GPU is not performing as expected. Check the flops values and temperatures\n"
    "  - GPU 1 - GPU is throttled. Check the throttling reasons and temperatures\n"
    "Freeing GPUs...\n"
)


def _parse(text: str):
    return gpu_fryer.parse(Artefact(path="out.txt", text=text, node="n1"))


def _results(text: str):
    return {f.gpu: f for f in _parse(text).facts if f.kind == "gpu_fryer_result"}


def test_detects_its_result_rows_and_not_other_burns():
    assert gpu_fryer.detect(SAMPLE.read_text())
    assert not gpu_fryer.detect("50.0%  proc'd: 2261 (7150 Gflop/s)   errors: 0   temps: 38 C\n")
    assert not gpu_fryer.detect("GEMM [I] (ADAPTER#0)  Ending with 6698.442948608 GFlops\n")
    assert not gpu_burn.detect(SAMPLE.read_text()) and not ubergemm.detect(SAMPLE.read_text())


def test_real_zero_rates_under_a_healthy_verdict():
    r = _parse(SAMPLE.read_text())
    by = {f.gpu: f for f in r.facts if f.kind == "gpu_fryer_result"}
    assert sorted(by) == [0, 1, 2, 3] and r.errors == []
    assert all(f.gflops == 0 and f.gflops_max == 0 and f.verdict == "healthy" for f in by.values())
    assert by[0].temperature_c == 0.0 and not by[0].throttle_hw and not by[0].throttle_thermal
    assert by[2].evidence.line == 7 and by[2].gpu_name == "GPU2"
    bench = [f for f in r.facts if f.kind == "bench_result"]
    assert {(f.benchmark, f.entity, f.value) for f in bench} == {("gpu_fryer", f"gpu{i}", 0.0) for i in range(4)}


def test_not_healthy_reasons_belong_to_their_gpu():
    by = _results(NOT_HEALTHY)
    assert by[0].verdict == "not_healthy" and by[0].problems is None and not by[0].reported_slow
    assert by[1].reported_slow and by[1].reported_throttled and by[1].throttle_thermal and not by[1].throttle_hw
    assert by[1].gflops == 48011 and by[1].gflops_max == 55000.0 and by[1].temperature_c == 86.9


def test_rows_without_a_verdict_are_a_run_cut_short():
    (f,) = _results(NOT_HEALTHY.split("GPU #1:")[0]).values()
    assert f.verdict is None and f.gflops == 61234


def test_progress_rows_and_other_text_yield_nothing():
    assert not _parse("1234 (61234 Gflops/s) - 1200 (60000 Gflops/s) | Temperatures: 70°C - 71°C | "
                      "Throttling: None - None\n").facts
    assert not _parse("All GPUs seem healthy\n").facts

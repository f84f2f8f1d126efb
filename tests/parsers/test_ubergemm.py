"""ubergemm reader on its real sample (fixtures/artefacts/ubergemm: NVIDIA/DCGM#122)."""
from pathlib import Path

from stethoscope.facts.parsers import ubergemm
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures/artefacts/ubergemm/dcgm122_dgx_a100_gpu0_slow.txt"


def _parse(text: str):
    return ubergemm.parse(Artefact(path="out.txt", text=text, node="n1"))


def test_detects_the_sample_and_not_gpu_burn():
    assert ubergemm.detect(SAMPLE.read_text())
    assert not ubergemm.detect("50.0%  proc'd: 2261 (7150 Gflop/s)   errors: 0   temps: 38 C\n")


def test_one_figure_per_adapter():
    facts = [f for f in _parse(SAMPLE.read_text()).facts if f.kind == "bench_result"]
    by = {f.entity: f for f in facts}
    assert sorted(by) == [f"gpu{i}" for i in range(8)]
    assert by["gpu0"].value == 6698.4 and by["gpu0"].benchmark == "ubergemm" and by["gpu0"].metric == "gflops"
    assert by["gpu2"].value == 19239.4 and by["gpu0"].evidence.line == 2


def test_last_line_of_an_adapter_wins_and_other_text_yields_nothing():
    text = ("GEMM [I] (ADAPTER#1)  Ending with 100.5 GFlops\n"
            "GEMM [I] (ADAPTER#1)  Ending with 200.0 GFlops\n")
    (f,) = [f for f in _parse(text).facts if f.kind == "bench_result"]
    assert f.value == 200.0 and f.evidence.line == 2
    assert not _parse("GEMM [I] starting\n").facts

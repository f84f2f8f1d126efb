"""training_throughput's straggler reports (wild sweep 46): nvidia-resiliency-ext's GPU performance scores
and warnings (NeMo, Megatron-Bridge), Megatron-LM's StragglerDetector line, FlagScale's report."""
from stethoscope.facts.parsers import training_throughput
from stethoscope.facts.parsers.base import Artefact

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def _facts(text: str, kind: str):
    r = training_throughput.parse(Artefact(path="train.log", node="n1", text=text))
    assert r.errors == []
    return [f for f in r.facts if f.kind == kind]


def test_real_bridge_report_scores_per_rank_on_its_node():
    r = _parse(training_throughput, "training_throughput/nvrx_straggler_bridge2114_two_ranks.log")
    got = sorted((f.basis, f.rank, f.node, f.score, f.ranks, f.below_score) for f in r.facts if f.kind == "rank_performance_score")
    assert got == [("nvrx_individual", 0, "22ca9bdcfc9a", 0.98, 2, 0.7), ("nvrx_individual", 1, "22ca9bdcfc9a", 0.99, 2, 0.7),
                   ("nvrx_relative", 0, "22ca9bdcfc9a", 0.95, 2, 0.7), ("nvrx_relative", 1, "22ca9bdcfc9a", 1.0, 2, 0.7)]


def test_worst_best_blocks_count_the_job_ranks_and_skip_nan():
    text = ("GPU relative performance:\n Worst performing 1/512 ranks:\n  Rank=76 Node=h100-001-253-012 Score=0.64\n"
            " Best performing 1/512 ranks:\n  Rank=432 Node=h100-004-141-026 Score=0.99\n\n"
            "GPU individual performance:\n  Rank=0 Node=a Score=nan\n  Rank=1 Node=a Score=nan\n")
    got = _facts(text, "rank_performance_score")
    assert [(f.rank, f.node, f.score, f.ranks) for f in got] == [(76, "h100-001-253-012", 0.64, 512), (432, "h100-004-141-026", 0.99, 512)]


def test_nvrx_warning_names_ranks_list_or_set_with_the_rows_node():
    text = ("GPU relative performance:\n  Rank=3 Node=node-b Score=0.61\n  Rank=1 Node=node-a Score=1.00\n"
            "STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: [3]\n"
            "STRAGGLER DETECTION WARNING: Some GPUs performance dropped. Affected ranks: {162, 79}\n")
    got = _facts(text, "straggler_reported")
    assert sorted((f.basis, f.rank, f.node) for f in got) == [("individual", 79, "n1"), ("individual", 162, "n1"), ("relative", 3, "node-b")]


def test_megatron_line_slowest_rank_against_fastest():
    line = (" 0: INFO:megatron.core.utils:[2024-03-14 23:07:56] | MnRtt/Rnk: 3453.08ms/8 | MxRtt/Rnk: 3468.20ms/0 | MnPwr/Rnk: 601796W/8 | "
            "MxPwr/Rnk: 683801W/18 | MnTmp/Rnk: 52C/0 | MxTmp/Rnk: 65C/21 | MnUtl/Rnk: 97%/8 | MxUtl/Rnk: 100%/6 | MnClk/Rnk: 1950MHz/28 | "
            "MxClk/Rnk: 1980MHz/0 | MnDRtt/Rnk: 14.27ms/23 | MxDRtt/Rnk: 34.65ms/3 | MnEtpt/Rnk: 296.02TF/0 | MxEtpt/Rnk: 297.32TF/8\n")
    assert training_throughput.detect(line)
    got = {f.basis: f for f in _facts(line, "rank_performance_score")}
    assert (got["megatron_round_trip"].rank, got["megatron_round_trip"].score) == (0, 0.9956)
    assert (got["megatron_throughput"].rank, got["megatron_throughput"].score) == (0, 0.9956)
    assert got["megatron_round_trip"].clocks == "1950 MHz on rank 28 to 1980 MHz on rank 0"


def test_real_flagscale_none_detected_and_a_detected_rank():
    r = _parse(training_throughput, "training_throughput/flagscale938_straggler_report_none.log")
    assert [f for f in r.facts if f.kind == "straggler_reported"] == [] and r.errors == []
    text = "=== Straggler Report at Step 20 ===\n\nDetected Stragglers: [5, 9]\n  - Rank 5 (node-129)\n  - Rank 9 (rank-9)\n"
    assert training_throughput.detect(text)
    got = _facts(text, "straggler_reported")
    assert sorted((f.rank, f.node) for f in got) == [(5, "node-129"), (9, "n1")]


def test_lookalikes_and_garbage_read_nothing():
    text = ("GPU relative performance:\n  Rank=x Node=a Score=0.5\nRank=3 Node= Score=0.1\n"
            "STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: []\n"
            "MnRtt/Rnk: ms/ | MxRtt/Rnk: 0ms/1\nDetected stragglers:\nTrain MinThroughput/Rank: 129.44TF/0\n")
    assert _facts(text, "rank_performance_score") == [] and _facts(text, "straggler_reported") == []

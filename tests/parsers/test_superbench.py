"""superbench: SuperBench's return code per benchmark, from a results file or its log."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import superbench as sb
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/superbench"


def facts(text: str):
    return sb.parse(Artefact(path="t.log", text=text, node="node1")).facts


def test_results_of_superbench766_all_ranks_33():
    text = (FIX / "superbench766_cudnn_function_rc33.txt").read_text()
    assert sb.detect(text)
    (f,) = facts(text)
    assert (f.evidence.line, f.benchmark, f.code, f.code_name, f.outcome, f.ranks) == (
        1, "cudnn-function", 33, "microbenchmark_result_parsing_failure", "result_unreadable", "0-7")


def test_log_of_superbench380_binary_missing():
    text = (FIX / "superbench380_binary_not_exist.log").read_text()
    assert sb.detect(text)
    (f,) = facts(text)
    assert (f.evidence.line, f.benchmark, f.code, f.outcome) == (2, "cudnn-function", 31, "not_run")
    assert f.reason.startswith("The binary does not exist - benchmark: cudnn-function, binary name: cudnn_benchmark")


# CONSTRUCTED from runner.py's metric names and results-summary.jsonl's node key (tests/analyzer/test_results.jsonl's shape)
def test_jsonl_names_the_node_and_zero_is_no_fact():
    text = ('{"node": "sb-validation-01", "kernel-launch/return_code": 0, "mem-bw/return_code": 1, '
            '"nccl-bw/return_code:0": 32, "nccl-bw/return_code:3": 32}\n')
    fs = sorted(facts(text), key=lambda f: f.benchmark)
    assert [(f.node, f.benchmark, f.code, f.outcome, f.ranks) for f in fs] == [
        ("sb-validation-01", "mem-bw", 1, "not_run", None), ("sb-validation-01", "nccl-bw", 32, "run_failed", "0,3")]


@pytest.mark.parametrize("text", [
    '"kernel-launch/return_code": 0,\n',
    "[2022-07-31 05:32:08,788 h:1][kernel_launch.py:21][INFO] benchmark: kernel-launch, return code: 0, result: {'return_code': [0]}\n",
    "the return_code of the benchmark is printed at the end\n",
])
def test_success_and_prose_give_no_fact(text):
    assert facts(text) == []

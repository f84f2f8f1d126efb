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


def test_runner_invalid_content_of_superbench518_one_fact_per_benchmark():
    fs = facts((FIX / "superbench518_invalid_content_results.log").read_text())
    assert [(f.node, f.benchmark, f.how, f.ranks, f.evidence.line) for f in fs] == [
        ("u22", "cublas-function", "no_result", "0", 4), ("u22", "cudnn-function", "no_result", "0", 5),
        ("u22", "gemm-flops", "no_result", "0", 6), ("u22", "gpu-burn", "no_result", "0", 7)]
    assert fs[0].node_benchmarks == "cublas-function, cudnn-function, gemm-flops, gpu-burn"
    assert not fs[0].no_gpu_device


# CONSTRUCTED from registry.py's, executor.py's and runner.py's formats (__select_benchmark, __exec_benchmark, the results
# merge): a node where SuperBench found no GPU device, one benchmark raising, one with a code and its echo
def test_no_gpu_device_and_exception_and_echo():
    text = ("[2026-01-05 10:00:01,001 sb-node-01:77][registry.py:255][WARNING] Benchmark has no implementation, name: kernel-launch, platform: CPU\n"
            "[2026-01-05 10:00:01,002 sb-node-01:77][executor.py:145][ERROR] Executor failed in kernel-launch, invalid context.\n"
            "[2026-01-05 10:00:02,000 sb-node-01:77][executor.py:148][ERROR] Executor failed in mem-bw.\n"
            "[2026-01-05 10:00:03,000 sb-node-01:77][executor.py:131][INFO] benchmark: nccl-bw, return code: 32, result: {'return_code': [32]}.\n"
            "[2026-01-05 10:00:03,001 sb-node-01:77][executor.py:140][ERROR] Executor failed in nccl-bw.\n"
            "[2026-01-05 10:00:09,000 sb-ctl:12][runner.py:330][ERROR] Invalid JSON file: outputs/2026-01-05/nodes/sb-node-02/benchmarks/gpu-burn/rank3/results.json\n")
    fs = facts(text)
    got = sorted((f.kind, f.node, f.benchmark, getattr(f, "how", None)) for f in fs)
    assert got == [("superbench_benchmark_failed", "node1", "nccl-bw", None),
                   ("superbench_benchmark_no_result", "node1", "kernel-launch", "no_implementation"),
                   ("superbench_benchmark_no_result", "node1", "mem-bw", "exception"),
                   ("superbench_benchmark_no_result", "sb-node-02", "gpu-burn", "results_unreadable")]
    k = next(f for f in fs if getattr(f, "benchmark", "") == "kernel-launch")
    assert (k.platform, k.no_gpu_device, k.evidence.line) == ("CPU", True, 1)
    assert k.reason.startswith("SuperBench found no GPU device")

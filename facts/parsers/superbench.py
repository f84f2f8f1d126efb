"""SuperBench (microsoft/superbenchmark): a benchmark's return code, from its results or from its log.

SuperBench runs each benchmark and records a ``ReturnCode`` (superbench/benchmarks/return_code.py) in its result; the
runner flattens every node's results into ``results-summary.json`` / ``results-summary.jsonl`` (one line per node,
its ``"node"`` key naming it) with metric names ``{benchmark}/[{run}/]{metric}[:{rank}]`` (runner.py
``__generate_metric_name``), so a benchmark's code is ``"<benchmark>/return_code": N`` or, one per rank,
``"<benchmark>/return_code:<rank>": N``. The executor logs each run (executor.py ``__exec_benchmark``; the examples
print the same words without the closing period)::

    logger.info('benchmark: %s, return code: %s, result: %s.', benchmark.name, benchmark.return_code, benchmark.result)

and micro_base.py says why a micro-benchmark stopped: ``The binary does not exist - benchmark: {}, binary name: {},
binary directory: {}.`` (31), ``The binary name is not set - benchmark: {}.`` (30), ``Microbenchmark execution failed
- round: {}, benchmark: {}, error message: {}.`` (32). Samples (microsoft/superbenchmark#766, a results file as
pasted; #380, the example's log)::

      "cudnn-function/return_code:0": 33,
    [2022-07-31 05:32:08,788 ac5e130cece6:26637][micro_base.py:129][ERROR] The binary does not exist - benchmark: cudnn-function, binary name: cudnn_benchmark, binary directory: None.
    [2022-07-31 05:32:08,788 ac5e130cece6:26637][cudnn_function.py:21][INFO] benchmark: cudnn-function, return code: 31, result: {'return_code': [31]}

A benchmark may leave no result and so no code (executor.py ``__exec_benchmark`` returns None, the executor writes
``[null]`` as its results.json): registry.py finds no implementation for the platform it detected (``Benchmark has no
implementation, name: gemm-flops, platform: CPU``: a node where SuperBench found no GPU device is taken for a CPU one),
the executor says ``Executor failed in <benchmark>, invalid context.`` (or ``Executor failed in <benchmark>.`` after an
exception), and the runner merging the results says ``Invalid content in JSON file: <output>/nodes/<node>/benchmarks/
<benchmark>/rank<N>/results.json`` (``Invalid JSON file: <path>`` where the file is not JSON). Sample (real,
microsoft/superbenchmark#518, superbenchmark 0.8.0, every benchmark of node u22)::

    [2023-04-14 19:17:19,199 u22:21920][runner.py:275][ERROR] Invalid content in JSON file: /home/edison/Downloads/superbenchmark-0.8.0/outputs/2023-04-14_19-16-21/nodes/u22/benchmarks/gemm-flops/rank0/results.json

Facts: ``superbench_benchmark_failed`` per benchmark and non-zero code (its ranks gathered, cited at its first line),
``outcome`` from the code's meaning (``not_run``: 1, 2, 10, 30, 31, 34, 50, 51, 52; ``result_unreadable``: 3, 33,
54; any other ``run_failed``), ``reason`` micro_base's line for that benchmark where the log holds one. A code of 0 is
read, no fact. A fact cites micro_base's line for its benchmark where the log holds one (the ``[ERROR]`` line that says
why), else the code's first line. ``superbench_benchmark_no_result`` per node and benchmark that left no result (its
lines merged: the platform the registry names; no GPU device where that platform is CPU), cited at its first line; an
``Executor failed in X.`` after a code for X is that code's echo, no fact. Text without these forms: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.bench import SuperbenchBenchmarkNoResult  # noqa: F401
from stethoscope.facts.kinds.bench import SuperbenchBenchmarkFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "superbench"

#: superbench/benchmarks/return_code.py ReturnCode (every code it defines, 2021-2026)
RETURN_CODES = {
    0: "success", 1: "invalid_argument", 2: "invalid_benchmark_type", 3: "invalid_benchmark_result",
    4: "runtime_exception_error", 124: "killed_by_timeout", 10: "no_supported_precision",
    13: "distributed_setting_init_failure", 14: "distributed_setting_destroy_failure", 15: "dataset_generation_failure",
    16: "dataloader_init_failure", 17: "optimizer_creation_failure", 18: "model_creation_failure",
    30: "microbenchmark_binary_name_not_set", 31: "microbenchmark_binary_not_exist", 32: "microbenchmark_execution_failure",
    33: "microbenchmark_result_parsing_failure", 34: "microbenchmark_unsupported_architecture",
    35: "microbenchmark_device_getting_failure", 36: "microbenchmark_mpi_init_failure",
    50: "dockerbenchmark_image_not_set", 51: "dockerbenchmark_container_not_set", 52: "dockerbenchmark_image_pull_failure",
    53: "dockerbenchmark_execution_failure", 54: "dockerbenchmark_result_parsing_failure",
}
_NOT_RUN = frozenset({1, 2, 10, 30, 31, 34, 50, 51, 52})
_UNREADABLE = frozenset({3, 33, 54})

#   "cudnn-function/return_code:0": 33,                          (microsoft/superbenchmark#766)
# "kernel-launch/return_code": 0, "mem-bw/return_code":1       (superbenchmark tests/analyzer/test_results.jsonl)
_RESULT = re.compile(r'"(?P<bench>[A-Za-z0-9_.:-]{1,120}(?:/[A-Za-z0-9_.:-]{1,120}){0,4}?)/(?:\d{1,4}/)?return_code'
                     r'(?::(?P<rank>\d{1,5}))?"\s{0,5}:\s{0,5}(?P<code>-?\d{1,4})\b')
# ...[cudnn_function.py:21][INFO] benchmark: cudnn-function, return code: 31, result: {'return_code': [31]}   (#380)
_LOGGED = re.compile(r"\bbenchmark: (?P<bench>[^,\s]{1,200}), return code: (?P<code>-?\d{1,4}), result: ")
# The binary does not exist - benchmark: cudnn-function, binary name: cudnn_benchmark, binary directory: None.  (#380)
# The binary name is not set - benchmark: {}.  /  Microbenchmark execution failed - round: {}, benchmark: {}, error message: {}.
_REASON = re.compile(r"\b(?:The binary does not exist|The binary name is not set|Microbenchmark execution failed)"
                     r" - (?:round: \d+, )?benchmark: (?P<bench>[^,.\s]{1,200})[^\n]{0,400}")
# {"node": "sb-validation-01", ...   (results-summary.jsonl: one node's line)
_NODE = re.compile(r'"node"\s{0,5}:\s{0,5}"(?P<node>[^"\n]{1,200})"')
# runner.py (since 2021-08): logger.error('Invalid content in JSON file: {}'.format(results_file)), and 'Invalid JSON file: {}'
# ...[runner.py:275][ERROR] Invalid content in JSON file: /home/edison/.../outputs/2023-04-14_19-16-21/nodes/u22/benchmarks/gpu-burn/rank0/results.json   (#518)
_RUNNER = re.compile(r"\bInvalid (?P<what>content in JSON|JSON) file: (?P<path>\S{0,400}?/nodes/(?P<node>[^/\s]{1,128})/benchmarks/"
                     r"(?P<bench>[^/\s]{1,200})/rank(?P<rank>\d{1,5})/results\.json)")
# executor.py __exec_benchmark: logger.error('Executor failed in %s, invalid context.', name) / logger.error('Executor failed in %s.', name)
# ...[executor.py:132][ERROR] Executor failed in gemm-flops, invalid context.
_EXECUTOR = re.compile(r"\bExecutor failed in (?P<bench>[^\s,]{1,200}?)(?P<ctx>, invalid context)?\.[ \t]*$", re.M)
# registry.py __select_benchmark: logger.warning('Benchmark has no implementation, name: {}, platform: {}'.format(name, platform))
# ...[registry.py:255][WARNING] Benchmark has no implementation, name: gemm-flops, platform: CPU
_NO_IMPL = re.compile(r"\bBenchmark has no implementation, name: (?P<bench>[^,\s]{1,200}), platform: (?:Platform\.)?(?P<platform>[A-Za-z]{1,16})\b")
_MARKERS = ("return_code", "return code: ", "The binary ", "Microbenchmark execution failed", "Invalid ", "Executor failed in ",
            "Benchmark has no implementation")


def detect(head: str) -> bool:
    return (_RESULT.search(head) is not None or _LOGGED.search(head) is not None or _REASON.search(head) is not None
            or _RUNNER.search(head) is not None or _NO_IMPL.search(head) is not None
            or _EXECUTOR.search(head) is not None)


def _ranks(ranks: list[int]) -> str | None:
    if not ranks:
        return None
    ranks = sorted(set(ranks))
    if ranks == list(range(ranks[0], ranks[-1] + 1)) and len(ranks) > 2:
        return f"{ranks[0]}-{ranks[-1]}"
    return ",".join(str(r) for r in ranks)


#: which line says most of a benchmark that left no result, when several do (the registry's names the platform)
_HOW_RANK = {"no_implementation": 0, "invalid_context": 1, "exception": 2, "results_unreadable": 3, "no_result": 4}


_HOW_WORDS = {
    "no_result": "the runner found its results empty: the executor recorded none (no implementation for the platform it "
                 "detected, or an exception: its sb-exec.log on that node says which)",
    "results_unreadable": "its results file is not JSON (cut short: the executor stopped or was killed while writing it)",
    "invalid_context": "the executor could not launch it (invalid context: no implementation for the platform, or an unknown benchmark)",
    "exception": "the executor caught an exception running it (the line before says what)",
    "no_implementation": "it has no implementation for the platform SuperBench detected",
}


def _no_result(line: str, n: int, node: str | None, empty: dict[tuple[str | None, str], dict]) -> bool:
    """Merge a line that says a benchmark left no result into ``empty``; True where the line is one."""
    how, platform, rank = None, None, None
    if "Invalid " in line and (m := _RUNNER.search(line)) is not None:
        how, bench, node, rank = ("no_result" if m["what"].startswith("content") else "results_unreadable"), m["bench"], m["node"], int(m["rank"])
    elif "Executor failed in " in line and (m := _EXECUTOR.search(line)) is not None:
        how, bench = ("invalid_context" if m["ctx"] else "exception"), m["bench"]
    elif "no implementation" in line and (m := _NO_IMPL.search(line)) is not None:
        how, bench, platform = "no_implementation", m["bench"], m["platform"]
    if how is None:
        return False
    e = empty.setdefault((node, bench), {"line": n, "how": how, "platform": None, "ranks": []})
    if _HOW_RANK[how] < _HOW_RANK[e["how"]]:
        e["how"] = how
    e["platform"] = e["platform"] or platform
    if rank is not None:
        e["ranks"].append(rank)
    return True


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    failed: dict[tuple[str | None, str, int], dict] = {}  # (node, benchmark, code) -> its first line and ranks
    reasons: dict[str, tuple[int, str]] = {}  # benchmark -> micro_base's line for it
    node: str | None = None
    empty: dict[tuple[str | None, str], dict] = {}  # (node, benchmark) -> the no-result fact's fields and first line
    for n, line in enumerate(artefact.lines, 1):
        if (m := _NODE.search(line)) is not None:
            node = m["node"]
        if not any(k in line for k in _MARKERS):
            continue
        used = False
        for m in _RESULT.finditer(line):
            used = True
            code = int(m["code"])
            if code != 0:
                f = failed.setdefault((node, m["bench"], code), {"line": n, "ranks": []})
                if m["rank"] is not None:
                    f["ranks"].append(int(m["rank"]))
        if (m := _LOGGED.search(line)) is not None:
            used = True
            if (code := int(m["code"])) != 0:
                failed.setdefault((node, m["bench"], code), {"line": n, "ranks": []})
        if (m := _REASON.search(line)) is not None:
            used = True
            reasons.setdefault(m["bench"], (n, m.group(0).strip()[:300]))
        used = _no_result(line, n, node, empty) or used
        if used:
            result.lines_used += 1
    coded = {bench for (_, bench, _) in failed}
    for (on, bench) in [k for k in empty if k[0] is None]:  # the executor's or registry's line, the runner's of one node
        named = [k for k in empty if k[1] == bench and k[0] is not None]
        if len(named) == 1:
            e, f = empty.pop((on, bench)), empty[named[0]]
            f["line"], f["platform"] = min(f["line"], e["line"]), f["platform"] or e["platform"]
            if _HOW_RANK[e["how"]] < _HOW_RANK[f["how"]]:
                f["how"] = e["how"]
    for (on, bench), e in empty.items():
        if e["how"] == "exception" and bench in coded:  # 'Executor failed in X.' after X's code: that code's echo
            continue
        cpu = (e["platform"] or "").upper() == "CPU"
        reason = (f"SuperBench found no GPU device (/dev/nvidiactl and /dev/nvidia-uvm, or /dev/kfd) and took the node for a CPU "
                  f"one, where {bench} has no implementation") if cpu else \
            f"{bench} has no implementation for the platform {e['platform']}" if e["platform"] else _HOW_WORDS[e["how"]]
        listed = ", ".join(k[1] for k in empty if k[0] == on and not (empty[k]["how"] == "exception" and k[1] in coded))
        b.add(SuperbenchBenchmarkNoResult, e["line"], benchmark=bench, how=e["how"], platform=e["platform"],
              no_gpu_device=cpu, ranks=_ranks(e["ranks"]), reason=reason, node_benchmarks=listed, **({"node": on} if on else {}))
    for (on, bench, code), f in failed.items():
        outcome = "not_run" if code in _NOT_RUN else "result_unreadable" if code in _UNREADABLE else "run_failed"
        reason = reasons.get(bench)
        # cited at micro_base's line where the log has one (an [ERROR] line: the line that says why), else the code's
        b.add(SuperbenchBenchmarkFailed, reason[0] if reason else f["line"], benchmark=bench, code=code,
              code_name=RETURN_CODES.get(code, "unknown"), outcome=outcome, ranks=_ranks(f["ranks"]),
              reason=reason[1] if reason else None, **({"node": on} if on else {}))
    return result


#: the line signatures this reader owns (facts/classify.py: one pass over every reader's)
SIGNATURES = (_RESULT, _LOGGED, _REASON, _RUNNER, _EXECUTOR, _NO_IMPL)

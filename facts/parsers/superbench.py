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

Facts: ``superbench_benchmark_failed`` per benchmark and non-zero code (its ranks gathered, cited at its first line),
``outcome`` from the code's meaning (``not_run``: 1, 2, 10, 30, 31, 34, 50, 51, 52; ``result_unreadable``: 3, 33,
54; any other ``run_failed``), ``reason`` micro_base's line for that benchmark where the log holds one. A code of 0 is
read, no fact. A fact cites micro_base's line for its benchmark where the log holds one (the ``[ERROR]`` line that says
why), else the code's first line. Text without these forms: nothing.
"""
from __future__ import annotations

import re

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
_MARKERS = ("return_code", "return code: ", "The binary ", "Microbenchmark execution failed")


def detect(head: str) -> bool:
    return _RESULT.search(head) is not None or _LOGGED.search(head) is not None or _REASON.search(head) is not None


def _ranks(ranks: list[int]) -> str | None:
    if not ranks:
        return None
    ranks = sorted(set(ranks))
    if ranks == list(range(ranks[0], ranks[-1] + 1)) and len(ranks) > 2:
        return f"{ranks[0]}-{ranks[-1]}"
    return ",".join(str(r) for r in ranks)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    failed: dict[tuple[str | None, str, int], dict] = {}  # (node, benchmark, code) -> its first line and ranks
    reasons: dict[str, tuple[int, str]] = {}  # benchmark -> micro_base's line for it
    node: str | None = None
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
        if used:
            result.lines_used += 1
    for (on, bench, code), f in failed.items():
        outcome = "not_run" if code in _NOT_RUN else "result_unreadable" if code in _UNREADABLE else "run_failed"
        reason = reasons.get(bench)
        # cited at micro_base's line where the log has one (an [ERROR] line: the line that says why), else the code's
        b.add(SuperbenchBenchmarkFailed, reason[0] if reason else f["line"], benchmark=bench, code=code,
              code_name=RETURN_CODES.get(code, "unknown"), outcome=outcome, ranks=_ranks(f["ranks"]),
              reason=reason[1] if reason else None, **({"node": on} if on else {}))
    return result


#: the line signatures this reader owns (facts/classify.py: one pass over every reader's)
SIGNATURES = (_RESULT, _LOGGED, _REASON)

"""IBM Autopilot's DCGM verdict as it records it on the node: ``kubectl get node <n> -o yaml`` (or
``oc``, ``--show-labels``, ``describe node``) showing its ``autopilot.ibm.com/dcgm.level.<N>`` label
and the ``...dcgm.level.<N>.output`` annotation.

Autopilot (github.com/IBM/autopilot, autopilot-daemon/gpu-dcgm/entrypoint.py) runs ``dcgmi diag -j
-r <N>`` and writes ``PASS_<UTC time>`` or ``ERR_<UTC time>`` to the label; the failed tests go to
the annotation (IBM/autopilot#72), or after the time in the label itself (``ERR_<time>_<output>``,
before #72). The output is, per test whose first result is ``Fail``, the test's name in lower case
with spaces and slashes as ``_`` followed by ``.<gpu_id>`` for each of its results
(``parse_all_results``). Sample content (IBM/autopilot#72, a failing bare-metal GPU node)::

    autopilot.ibm.com/dcgm.level.3.output: pcie.0.1.2.3gpu_memory.0.1.2.3diagnostic.0.1.2.3memory_bandwidth.0.1.2.3
    autopilot.ibm.com/dcgm.level.1: PASS_2025-04-18_14.03.08UTC
    autopilot.ibm.com/dcgm.level.3: ERR_2025-04-18_14.07.58UTC

Facts: ``dcgm_diag_result`` (result Fail, source json: Autopilot read dcgmi's JSON) per failed test
of an ``ERR`` level, on ``GPU<first id>``, the GPU of the result Autopilot judged (the other ids
are the test's other results, passed or failed: Autopilot does not say); the part it points at
is the test's (knowledge/dcgm.yaml ``tests``). An ``ERR`` whose tests are not in the paste is one
failed result of the run as a whole (``dcgmi diag -r <N>``, part: the GPU). ``PASS`` names no test:
nothing (a pass recorded by a label is not read as a check of any part). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.dcgm_facts import DcgmDiagResult, test_meaning

KIND = "autopilot_node_labels"

#     autopilot.ibm.com/dcgm.level.3: ERR_2025-04-18_14.07.58UTC
#     autopilot.ibm.com/dcgm.level.1: PASS_2025-04-18_14.03.08UTC
# autopilot.ibm.com/dcgm.level.3=ERR_2025-04-18_14.07.58UTC_pcie.0.1      (--show-labels, before IBM/autopilot#72)
_LABEL = re.compile(r"autopilot\.ibm\.com/dcgm\.level\.(?P<level>[1-4])[\"']?\s*[:=]\s*[\"']?(?P<res>PASS|ERR)_"
                    r"(?P<time>\d{4}-\d\d-\d\d_\d\d\.\d\d\.\d\dUTC)(?:_(?P<out>[\w.]+))?")
#     autopilot.ibm.com/dcgm.level.3.output: pcie.0.1.2.3gpu_memory.0.1.2.3diagnostic.0.1.2.3memory_bandwidth.0.1.2.3
_OUTPUT = re.compile(r"autopilot\.ibm\.com/dcgm\.level\.(?P<level>[1-4])\.output[\"']?\s*[:=]\s*[\"']?(?P<out>[\w.]*)")
# pcie.0.1.2.3   gpu_memory.0.1.2.3   (a result without a gpu_id is written "NoGPUid")
_TEST = re.compile(r"(?P<test>[a-z][a-z_]*?)(?P<ids>(?:\.\d+|NoGPUid)+)")
_DETECT = re.compile(r"autopilot\.ibm\.com/dcgm\.level\.[1-4]")


def detect(head: str) -> bool:
    return "autopilot.ibm.com/dcgm.level." in head and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    failed: dict[str, tuple[int, str]] = {}  # level -> (line, output) of an ERR label
    outputs: dict[str, tuple[int, str]] = {}  # level -> (line, output) of its annotation
    for n, line in enumerate(artefact.lines, 1):
        if "autopilot.ibm.com/dcgm.level." not in line:
            continue
        if (m := _OUTPUT.search(line)) is not None:
            outputs[m["level"]] = (n, m["out"])
            result.lines_used += 1
        elif (m := _LABEL.search(line)) is not None:
            if m["res"] == "ERR":
                failed[m["level"]] = (n, m["out"] or "")
            result.lines_used += 1
    for level, (line, out) in failed.items():
        ann_line, ann = outputs.get(level, (line, ""))
        text, at = (ann, ann_line) if ann else (out, line)
        tests = list(_TEST.finditer(text))
        if not tests:
            b.add(DcgmDiagResult, line, test=f"dcgmi diag -r {level}", result="Fail", gpu_name="the node's GPUs",
                  reason=f"Autopilot recorded its DCGM level-{level} run as ERR; the failed tests are not in the paste",
                  component="gpu", cause="gpu_hardware_fault", source="json")
            continue
        for t in tests:
            ids = re.findall(r"\d+", t["ids"])
            name = t["test"].replace("_", " ")
            component, cause = test_meaning(name)
            first = int(ids[0]) if ids else None
            listed = ", ".join(ids) or "none"
            b.add(DcgmDiagResult, at, test=name, result="Fail", gpu=first,
                  gpu_name=f"GPU{first}" if first is not None else "a GPU Autopilot did not number",
                  reason=(f"Autopilot's dcgmi diag -r {level} ({'ERR' if at == line else 'annotation'}): the test's first "
                          f"result failed; its results were for GPUs {listed}"),
                  component=component or "gpu", cause=cause or "gpu_hardware_fault", source="json")
    return result


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)

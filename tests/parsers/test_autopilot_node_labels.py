"""autopilot_node_labels: IBM Autopilot's dcgmi diag verdict read from the node's label and annotation."""
from __future__ import annotations

from parse_helper import parse_fixture

from stethoscope.facts.parsers import autopilot_node_labels


def _results(r):
    return [(f.evidence.line, f.test, f.result, f.gpu, f.component) for f in r.facts]


def test_autopilot72_level3_err_with_annotation():
    r = parse_fixture(autopilot_node_labels, "autopilot_node_labels/autopilot72_dcgm_level3_err_evict.txt")
    assert _results(r) == [(4, "pcie", "Fail", 0, "pcie"), (4, "gpu memory", "Fail", 0, "gpu_memory"),
                           (4, "diagnostic", "Fail", 0, "gpu"), (4, "memory bandwidth", "Fail", 0, "gpu_memory")]
    assert "GPUs 0, 1, 2, 3" in r.facts[0].reason and r.lines_used == 4 and r.errors == []


def test_err_label_with_output_before_annotations():
    # before IBM/autopilot#72 the output followed the time in the label (entrypoint.py patch_node)
    r = parse_fixture(autopilot_node_labels, text="    autopilot.ibm.com/dcgm.level.3: ERR_2025-03-13_10.00.00UTC_pcie.0.1\n")
    assert _results(r) == [(1, "pcie", "Fail", 0, "pcie")]


def test_err_label_alone_and_pass():
    r = parse_fixture(autopilot_node_labels, text=("    autopilot.ibm.com/dcgm.level.1: PASS_2025-04-18_14.03.08UTC\n"
                                                   "    autopilot.ibm.com/dcgm.level.3: ERR_2025-04-18_14.07.58UTC\n"))
    assert _results(r) == [(2, "dcgmi diag -r 3", "Fail", None, "gpu")]
    r = parse_fixture(autopilot_node_labels, text="    autopilot.ibm.com/dcgm.level.1: PASS_2025-04-18_14.03.08UTC\n")
    assert r.facts == [] and r.lines_used == 1

"""nvidia-imex-ctl -N (imex_ctl): two real healthy tables (the DRA driver developer's two GH200 nodes, IMEX 570.00;
the AWS PCS guide's 18 GB200 trays with versions), the real run without a configuration file, a CONSTRUCTED degraded
domain and a table cut before its Domain State, and texts that are not the tool's."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import imex_ctl
from stethoscope.facts.parsers.base import Artefact

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "imex_ctl"


def _parse(text: str):
    return imex_ctl.parse(Artefact(path="imex.txt", text=text, node="n1"))


def test_real_two_gh200_nodes_domain_up():
    text = (FIXTURES / "jpsnips_gh200_2_nodes_domain_up.txt").read_text()
    assert imex_ctl.detect(text)
    (f,) = _parse(text).facts
    assert (f.state, f.nodes, f.nodes_ready, f.links, f.links_connected, f.problem_count) == ("UP", 2, 2, 4, 4, 0)
    assert f.evidence.text == "Domain State: UP" and f.versions == ""


def test_real_18_gb200_trays_with_versions():
    text = (FIXTURES / "awspcs_gb200_18_trays_domain_up.txt").read_text()
    res = _parse(text)
    (f,) = res.facts
    assert (f.state, f.nodes, f.nodes_ready, f.links, f.links_connected) == ("UP", 18, 18, 324, 324)
    assert f.versions == "570.172" and f.problem_nodes == ""
    # the legend (with !V! and !M!), the time, Nodes:, 18 node rows, the header, 18 matrix rows, the state
    assert res.lines_used == 9 + 1 + 1 + 18 + 1 + 18 + 1


def test_real_run_without_a_configuration_file_queried_nothing():
    text = (FIXTURES / "bottlerocket204_no_config_file.txt").read_text()
    assert imex_ctl.detect(text)
    res = _parse(text)
    assert res.facts == []
    (hit,) = res.limits
    assert hit.limit == "query_refused" and "/etc/nvidia-imex/config.cfg" in hit.detail and hit.line == 2
    assert res.lines_used == 6  # the refusal, the usage line, Where: and its three option rows


def test_constructed_unavailable_node_degraded_domain():
    (f,) = _parse((FIXTURES / "constructed_node_unavailable_domain_degraded.txt").read_text()).facts
    assert (f.state, f.nodes, f.nodes_ready, f.links, f.links_connected) == ("DEGRADED", 4, 3, 16, 9)
    assert f.problem_count == 4 and f.problem_nodes.startswith("#0 (0->2 N")
    assert "#2 (172.31.48.221 UNAVAILABLE; 0->2 N" in f.problem_nodes
    assert f.versions == "570.172" and f.evidence.text == "Domain State: DEGRADED"


def test_cut_before_the_domain_state_cites_the_first_problem():
    text = ("Nodes:\nNode #0   - 10.0.0.1   - READY\nNode #1   - 10.0.0.2   - WAITING_FOR_PEERS\n\n"
            " Nodes From\\To  0  1\n       0        C  A\n       1        N  C\n")
    (f,) = _parse(text).facts
    assert f.state is None and f.nodes_ready == 1 and f.links_connected == 2
    assert f.evidence.text.startswith("Node #1") and f.problem_count == 2


def test_elided_columns_count_states_without_pairs():
    # a paste that elides columns ('...'): states counted, no pair named
    text = " Nodes From\\To  0   1   2   3 ... 17\n       0        C   C   C   N ... N\nDomain State: DEGRADED\n"
    (f,) = _parse(text).facts
    assert (f.links, f.links_connected, f.state) == (5, 3, "DEGRADED") and "0-> N" in f.problem_nodes


def test_other_texts_are_not_the_tool_output():
    assert not imex_ctl.detect("Domain State: UP\n")  # no node rows, no matrix
    assert not imex_ctl.detect("Nodes:\n  - name: a\n")
    assert _parse("READY\n").facts == []

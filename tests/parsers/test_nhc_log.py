"""NHC's NCCL all-reduce checks: the figures of the failed check (Azure azurehpc-health-checks)."""
from __future__ import annotations

from pathlib import Path

from parse_helper import parse_fixture

from stethoscope.facts.parsers import nhc_log

CASE_1603 = Path(__file__).resolve().parents[2] / "fixtures/harvest/cases/" \
    "1603-healthy-nhc-nccl-allreduce-low-bw-artifact-of-topo-file-manual-run-480gbs/other.txt"


def _bw(res):
    return [(f.node, f.check, f.busbw_gbps, f.expected_busbw_gbps, f.loopback) for f in res.facts if f.busbw_gbps]


def test_allreduce_check_figures() -> None:
    (f,) = parse_fixture(nhc_log, text=CASE_1603.read_text()).facts  # azurehpc-health-checks#142
    assert (f.check, f.busbw_gbps, f.expected_busbw_gbps, f.loopback, f.fault_code) == (
        "check_nccl_allreduce", 15.1043, 431.0, False, "NHC2010")


def test_ib_loopback_check_figures() -> None:
    res = parse_fixture(nhc_log, "nhc/azurehpc_distributed_nhc_results.txt")
    assert _bw(res) == [("mynode-079", "check_nccl_allreduce_ib_loopback", 20.7377, 40.0, True)]


def test_site_script_form_without_closing_paren() -> None:
    line = ("ERROR: nhc: Health check failed: check_nccl_allreduce_ib_loopback: NCCL allreduce IB loopback, "
            "BUS BW (expected > 40 GB/s, but measured 18.5 GB/s\n")
    assert _bw(parse_fixture(nhc_log, text=line)) == [("n1", "check_nccl_allreduce_ib_loopback", 18.5, 40.0, True)]

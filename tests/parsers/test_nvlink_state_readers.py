"""nvidia-smi nvlink -s and NHC's check_nvlink_status on real captures: link states, the product's
expectation from knowledge/nvlink_expected.yaml, and NHC results."""

import pytest

from stethoscope.facts.parsers import nhc_log, nvidia_smi_nvlink

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_bridged_h100_pcie_links_and_expectations():
    r = _parse(nvidia_smi_nvlink, "nvidia_smi_nvlink/hpe_dl380a_h100_pcie_bridged_nvlink_s.txt")
    assert r.errors == [] and len(r.facts) == 36
    gpu0 = [f for f in r.facts if f.gpu == "GPU0"]
    inactive = [f.link for f in gpu0 if f.state == "inactive"]
    assert inactive == [4, 5, 10, 11, 16, 17]
    assert {f.expected for f in gpu0 if f.state == "inactive"} == {"unwired"}
    assert {(f.expected, f.speed_gbps) for f in gpu0 if f.state == "active"} == {("bridge", 26.562)}
    assert {f.gpu_active_links for f in gpu0} == {12}
    assert gpu0[0].gpu_name == "NVIDIA H100 PCIe" and gpu0[0].gpu_uuid == "GPU-6968dfc2-d444-d92c-c36b-6abe53445cb9"


@pytest.mark.parametrize("name, link, want", [
    ("Tesla V100-SXM2-32GB", 3, "wired"),
    ("NVIDIA H100 80GB HBM3", 17, "wired"),
    ("NVIDIA A100-PCIE-40GB", 11, "bridge"),
    ("NVIDIA H100 PCIe", 16, "unwired"),
    ("NVIDIA L4", 0, None),
    (None, 0, None),
])
def test_expectation_per_product(name, link, want):
    assert nvidia_smi_nvlink.expected(name, link) == want


def test_all_links_inactive_line():
    text = "GPU 0: NVIDIA H100 PCIe (UUID: GPU-x)\nNVML:Unable to retrieve Nvlink information as all links are inActive\n"
    (f,) = _parse(nvidia_smi_nvlink, text=text).facts
    assert (f.link, f.all_links, f.state, f.expected, f.gpu_active_links) == (None, True, "inactive", "bridge", 0)


def test_other_nvlink_subcommands_are_not_states():
    text = ("GPU 0: NVIDIA H100 PCIe (UUID: GPU-x)\n         Link 0: 26.562 GB/s\n"
            "         Link 0: Remote Device 00000000:D5:00.0: Link 0\n         Link 0: Replay Errors: 0\n")
    r = _parse(nvidia_smi_nvlink, text=text)
    assert [(f.link, f.state) for f in r.facts if f.kind == "nvlink_link_state"] == [(0, "active")] and r.errors == []
    assert [(f.kind, f.counter) for f in r.facts if f.kind != "nvlink_link_state"] == [("nvlink_error_count", "replay")]


def test_nhc_nvlink_failure_lists_its_links():
    r = _parse(nhc_log, "nhc/azurehpc162_nvlinks_inactive.txt")
    (failed,) = [f for f in r.facts if f.kind == "nhc_check_failed"]
    assert failed.check == "check_nvlink_status" and failed.evidence.line == 1
    links = [(f.evidence.line, f.gpu, f.link, f.expected, f.source) for f in r.facts if f.kind == "nvlink_link_state"]
    assert links == [(1, "GPU0", 4, None, "nhc"), (2, "GPU0", 5, None, "nhc"), (3, "GPU0", 10, None, "nhc"),
                     (4, "GPU0", 11, None, "nhc"), (5, "GPU0", 16, None, "nhc")]
    assert r.lines_used == 5


def test_distributed_nhc_results_name_their_hosts():
    r = _parse(nhc_log, "nhc/azurehpc_distributed_nhc_results.txt")
    got = [(f.node, f.check) for f in r.facts]
    assert got == [("mynode-066", "check_gpu_xid"), ("mynode-079", "check_nccl_allreduce_ib_loopback"),
                   ("mynode-084", None), ("mynode-108", None), ("mynode-123", None), ("mynode-273", "check_hw_ib"),
                   ("mynode-510", "check_gpu_ecc")]
    assert r.lines_used == 8  # the Healthy line is read too


def test_nhc_all_links_inactive():
    (f, g) = _parse(nhc_log, text="ERROR:  nhc:  Health check failed:  check_nvlink_status: GPU 2 has all nvlinks inactive\n").facts
    assert (f.kind, g.kind, g.gpu, g.all_links, g.link) == ("nhc_check_failed", "nvlink_link_state", "GPU2", True, None)


def test_nvlink_error_counters():
    r = _parse(nvidia_smi_nvlink, "nvidia_smi_nvlink/ml_engineering_h100_nvlink_e.txt")
    got = [(f.evidence.line, f.gpu, f.link, f.counter, f.value) for f in r.facts]
    assert got[:3] == [(3, "GPU0", 0, "replay", 0), (4, "GPU0", 0, "recovery", 0), (5, "GPU0", 0, "crc", 0)]
    assert len(got) == 9 and r.errors == [] and {f.kind for f in r.facts} == {"nvlink_error_count"}


def test_nvlink_s_links_the_poster_elided_are_marked():
    # NVIDIA/nccl-tests#228 (harvest 155): GPUs 0 and 1 with all twelve links, then GPU 2's Link 0 and '......'
    r = _parse(nvidia_smi_nvlink, "nvidia_smi_nvlink/nccl_tests228_a100_sxm4_nvlink_s_elided.txt")
    states = [f for f in r.facts if f.kind == "nvlink_link_state"]
    assert {f.gpu for f in states if f.elided} == {"GPU2"}
    assert sum(1 for f in states if not f.elided) == 24

"""aws-ofi-nccl refusing EFA endpoints without GPUDirect RDMA, and the init lines after it (aws/aws-ofi-nccl#889,
CloudWatch columns kept; src/platform-aws.c(pp), src/nccl_ofi_net.c(pp), src/nccl_ofi_api.c(pp))."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import nccl_log
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.nccl_log_messages import read_ofi_setup

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nccl_log"


def test_gdr_required_endpoint_and_init_lines():
    text = (FIX / "aws_ofi_nccl889_gdr_required_p4d.log").read_text()
    r = nccl_log.parse(Artefact(path="nccl.log", text=text, node="n1"))
    got = [(f.node, f.call, f.resource, f.error, f.code) for f in r.facts if f.kind == "nccl_net_plugin_error"]
    assert got == [
        ("ip-10-36-29-253", "gdr_required", None, "GDR disabled on GDR-supported instance type p4d.24xlarge", None),
        ("ip-10-36-29-253", "libfabric_setup", "create endpoint", "Invalid argument", -22),  # fi_strerror(EINVAL) given back
        ("ip-10-36-29-253", "init", None, "aws-ofi-nccl initialization failed", None),
        ("ip-10-36-29-253", "init", None, "Initializing plugin failed", None)]


def test_endpoint_line_of_1_17_and_later_has_no_error_text():
    # v1.17.0..v1.21.1 NCCL_OFI_WARN("Creating new endpoint for domain %p failed", this), filled in
    assert read_ofi_setup("NET/OFI Creating new endpoint for domain 0x55d1c2a0 failed") == dict(
        plugin="OFI", call="libfabric_setup", resource="create endpoint", error="failed", code=None)


def test_near_misses():
    for msg in ("NET/OFI GDR disabled on GDR-supported instance type",  # no instance type
                "NET/OFI Could not disable CUDA API usage for HMEM, disabling GDR",  # an INFO of the plugin's, not this
                "NET/OFI Creating new endpoint for domain 0x55d1c2a0"):
        assert read_ofi_setup(msg) is None, msg

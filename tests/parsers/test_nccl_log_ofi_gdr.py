"""aws-ofi-nccl refusing EFA endpoints without GPUDirect RDMA, and the init lines after it (src/platform-aws.c(pp),
src/nccl_ofi_net.c(pp), src/nccl_ofi_api.c(pp): NCCL_OFI_WARN's formats, "NET/OFI " before each, filled in)."""
from __future__ import annotations

from stethoscope.facts.parsers import nccl_log
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.nccl_log_messages import read_ofi_setup

def test_gdr_required_endpoint_and_init_lines():
    # v1.16.3: platform-aws.cpp:715 "GDR disabled on GDR-supported instance type %s" (platform_data->name, a name of its
    # platform table), nccl_ofi_net.cpp:1002 "Creating new endpoint for domain %p failed: %s" (fi_strerror(-ret) of
    # -EINVAL), nccl_ofi_api.cpp:166 "Initializing plugin failed"
    text = ("n1:10:20 [0] platform_config_endpoint:715 NCCL WARN NET/OFI GDR disabled on GDR-supported instance type "
            "p4d.24xlarge\n"
            "n1:10:20 [0] nccl_net_ofi_domain_get_ep:1002 NCCL WARN NET/OFI Creating new endpoint for domain 0x55d1c2a0 "
            "failed: Invalid argument\n"
            "n1:10:20 [0] nccl_net_ofi_init_v6:166 NCCL WARN NET/OFI Initializing plugin failed\n")
    r = nccl_log.parse(Artefact(path="nccl.log", text=text, node="n1"))
    got = [(f.node, f.call, f.resource, f.error, f.code) for f in r.facts if f.kind == "nccl_net_plugin_error"]
    assert got == [
        ("n1", "gdr_required", None, "GDR disabled on GDR-supported instance type p4d.24xlarge", None),
        ("n1", "libfabric_setup", "create endpoint", "Invalid argument", -22),  # fi_strerror(EINVAL) given back
        ("n1", "init", None, "Initializing plugin failed", None)]


def test_endpoint_line_of_1_17_and_later_has_no_error_text():
    # v1.17.0..v1.21.1 NCCL_OFI_WARN("Creating new endpoint for domain %p failed", this), filled in
    assert read_ofi_setup("NET/OFI Creating new endpoint for domain 0x55d1c2a0 failed") == dict(
        plugin="OFI", call="libfabric_setup", resource="create endpoint", error="failed", code=None)


def test_near_misses():
    for msg in ("NET/OFI GDR disabled on GDR-supported instance type",  # no instance type
                "NET/OFI Could not disable CUDA API usage for HMEM, disabling GDR",  # an INFO of the plugin's, not this
                "NET/OFI Creating new endpoint for domain 0x55d1c2a0"):
        assert read_ofi_setup(msg) is None, msg

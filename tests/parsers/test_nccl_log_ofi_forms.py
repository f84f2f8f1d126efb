"""aws-ofi-nccl's WARN forms read by :func:`read_ofi_other`, grouped by what they mean (bench/ofi_warn_formats.yaml:
every NCCL_OFI_WARN format of v1.7.0-aws..v1.21.1; bench/ofi_warn_audit.py). Each row is a format of the plugin's
source filled in (no public thread of an even number held these lines; the request line of aws-ofi-nccl#156 is the real
one of the older form), with the fields the rules read; teardown and internal checks must stay unread."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import nccl_log
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.nccl_log_messages import read_ofi_other, read_ofi_request

ROWS = [
    # include/nccl_ofi_platform.h v1.17.0..v1.21.1 "Request %p (%s) completed with error: err: %d, flags: %ld, prov_errno: %d, strerror: %s, len: %ld"
    ("NET/OFI Request 0x7f3a2c001200 (SEND) completed with error: err: 113, flags: 0, prov_errno: 13, strerror: Unresponsive receiver, len: 0",
     dict(call="request_completion", error="Unresponsive receiver (provider error 13)", code=113, resource="SEND")),
    # ofiutils "GDR support reported to NCCL but then couldn't be configured on an endpoint.  Cannot continue."
    ("NET/OFI GDR support reported to NCCL but then couldn't be configured on an endpoint.  Cannot continue.",
     dict(call="gdr_required", error="GDR support reported to NCCL but then couldn't be configured on an endpoint.  Cannot continue")),
    # ofiutils "Failed to set FI_OPT_CUDA_API_PERMITTED. RC: %d, ERROR: %s"
    ("NET/OFI Failed to set FI_OPT_CUDA_API_PERMITTED. RC: -92, ERROR: Protocol not available",
     dict(call="gdr_required", error="Failed to set FI_OPT_CUDA_API_PERMITTED. RC: -92, ERROR: Protocol not available")),
    # platform-aws "EFA provider requires at least libfabric version 1.22.0."
    ("NET/OFI EFA provider requires at least libfabric version 1.22.0.",
     dict(call="libfabric_version", error="EFA provider requires at least libfabric version 1.22.0")),
    # rdma/sendrecv "Unable to insert remote address into address vector for device %d. RC: %s" (fi_strerror text)
    ("NET/OFI Unable to insert remote address into address vector for device 2. RC: Invalid argument",
     dict(call="libfabric_setup", resource="insert remote address into address vector for device 2", error="Invalid argument", code=-22)),
    # platform-aws "Couldn't set FI_OPT_EFA_WRITE_IN_ORDER_ALIGNED_128_BYTES. RC: %d, ERROR: %s"
    ("NET/OFI Couldn't set FI_OPT_EFA_WRITE_IN_ORDER_ALIGNED_128_BYTES. RC: -92, ERROR: Protocol not available",
     dict(call="libfabric_setup", resource="set FI_OPT_EFA_WRITE_IN_ORDER_ALIGNED_128_BYTES", error="Protocol not available", code=-92)),
    # rdma "Could not create Libfabric endpoint on rail %u"; "Creating new endpoint for device %s failed: %s"
    ("NET/OFI Could not create Libfabric endpoint on rail 3",
     dict(call="libfabric_setup", resource="create Libfabric endpoint on rail 3", error="failed")),
    ("NET/OFI Creating new endpoint for device rdmap16s27 failed: Invalid argument",
     dict(call="libfabric_setup", resource="create new endpoint for device rdmap16s27", error="Invalid argument")),
    # rdma "Unable to bind MR to EP (type = %d) for device %d. RC: %d, Error: %s": a CUDA buffer's MR
    ("NET/OFI Unable to bind MR to EP (type = 2) for device 0. RC: -22, Error: Invalid argument",
     dict(call="register_mr", resource="bind MR to EP (type = 2) for device 0", error="Invalid argument", code=-22, memory_type="cuda")),
    # rdma "Could not register memory on data rail %u with flag %lu" (the flag is no return code)
    ("NET/OFI Could not register memory on data rail 3 with flag 4",
     dict(call="register_mr", resource="register memory on data rail 3 with flag 4", error="failed", code=None)),
    # the data path: "fi_sendmsg failed with RC %zd", "Error posting RDMA %s request. RC: %zd, Error: %s"
    ("NET/OFI fi_sendmsg failed with RC -113", dict(call="post", resource="fi_sendmsg", error="failed", code=-113)),
    ("NET/OFI Error posting RDMA ctrl request. RC: -113, Error: No route to host",
     dict(call="post", resource="post RDMA ctrl request", error="No route to host", code=-113)),
    # "Unable to retrieve completion queue entries. RC: %zd, ERROR: %s"
    ("NET/OFI Unable to retrieve completion queue entries. RC: -5, ERROR: Input/output error",
     dict(call="completion_queue", resource="retrieve completion queue entries", error="Input/output error", code=-5)),
    # host memory and topology
    ("NET/OFI Unable to allocate send communicator", dict(call="allocate", resource="send communicator", error="host memory allocation failed")),
    ("NET/OFI Memory allocation (msgbuff) failed", dict(call="allocate", resource="msgbuff", error="host memory allocation failed")),
    ("NET/OFI Unable to load hardware topology.", dict(call="topology", error="Unable to load hardware topology")),
]


@pytest.mark.parametrize("msg,want", ROWS, ids=[r[0][8:48] for r in ROWS])
def test_form_gives_its_fields(msg, want):
    assert read_ofi_other(msg) == dict(plugin="OFI", **want)


@pytest.mark.parametrize("msg", [
    "NET/OFI Cleanup of domain failed. RC: -16, ERROR: Device or resource busy",  # teardown
    "NET/OFI Unable to de-register memory. RC: -22, Error: Invalid argument",  # teardown
    "NET/OFI Invalid topology",  # an internal check
    "NET/OFI Attempt to insert duplicate id",  # an internal check
    "NET/OFI Selected Provider is efa (found 4 nics)",  # an INFO line's text
    "NET/IB : Got async event : port error",  # not the plugin's
])
def test_near_misses_stay_unread(msg):
    assert read_ofi_other(msg) is None


def test_older_request_forms_with_flags_and_remote_write():
    # v1.14..v1.16 "... RC: %d. Flags: %ld. Error: %d (%s). ..." and the RDMA protocol's "Remote write completed with error"
    for msg in ("NET/OFI Request 0x7f3a2c001200 completed with error. RC: 113. Flags: 0. Error: 13 (Unresponsive receiver). Completed length: 0",
                "NET/OFI Remote write completed with error. RC: 113. Flags: 0. Error: 13 (Unresponsive receiver). Completed length: 0"):
        assert read_ofi_request(msg)["error"] == "Unresponsive receiver (provider error 13)", msg


def test_real_line_of_the_text_form_still_reads():
    # aws/aws-ofi-nccl#156 (MPIJob, security group not open between instances), as posted
    line = ("[1,13]<stdout>:nccl-tests-worker-1:35:89 [5] ofi_process_cq:1039 NCCL WARN NET/OFI Request 0x7fbb944701b8 completed "
            "with error. RC: 20. Error: unknown error. Completed length: 0, Request: { buffer_index: 255, dev: 1, size: 0, state: "
            "CREATED, direction: SEND }\n")
    r = nccl_log.parse(Artefact(path="nccl.log", text=line, node="n1"))
    got = [(f.call, f.error, f.code) for f in r.facts if f.kind == "nccl_net_plugin_error"]
    assert got == [("request_completion", "unknown error", 20)]


def test_a_prefixed_line_becomes_one_typed_fact():
    line = "[2025-06-01 10:00:00] ip-172-31-3-90:1929:1937 [0] post_send:2210 NCCL WARN NET/OFI fi_sendmsg failed with RC -113\n"
    r = nccl_log.parse(Artefact(path="nccl.log", text=line, node="n1"))
    got = [(f.call, f.resource, f.code) for f in r.facts if f.kind == "nccl_net_plugin_error"]
    assert got == [("post", "fi_sendmsg", -113)]

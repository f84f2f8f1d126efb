"""ucx_cuda_call: UCX's CUDA transports logging a failed CUDA driver or runtime call, on real lines."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import ucx_cuda_call as r
from stethoscope.facts.parsers.base import Artefact

import parser_rows


ROWS = [
    # (line, (node, catalogue name, call) or None for no fact)
    # openucx/ucx#9356: UCX 1.15's "%s() failed: %s" with the call's arguments, and 1.16's "%s failed: %s"
    ("cuda_copy_md.c:265  UCX  ERROR   cuMemAlloc_v2((CUdeviceptr*)address_p, *length_p)() failed: invalid device context",
     ("n1", "CUDA_ERROR_INVALID_CONTEXT", "cuMemAlloc_v2")),
    ("cuda_copy_md.c:265  UCX  ERROR   cuMemAlloc_v2((CUdeviceptr*)address_p, *length_p) failed: invalid device context",
     ("n1", "CUDA_ERROR_INVALID_CONTEXT", "cuMemAlloc_v2")),
    # xcompact3d/x3d2#292: cuda_copy_md.c's "cuMemGetAddressRange(%p) error: %s"
    ("[1774611987.873495] [kolmogorov:2952803:0]    cuda_copy_md.c:688  UCX  ERROR cuMemGetAddressRange(0x75e0ba800000) error: named symbol not found",
     ("kolmogorov", "CUDA_ERROR_NOT_FOUND", "cuMemGetAddressRange")),
    # a runtime call's text read as the runtime's (UCX 1.12's UCT_CUDAR_CALL "%s() failed: %s", filled)
    ("cuda_copy_ep.c:98   UCX  ERROR cudaMemcpyAsync() failed: invalid argument", ("n1", "cudaErrorInvalidValue", "cudaMemcpyAsync")),
    # a text the catalogue does not hold (uct_cuda_base_cu_get_error_string's own, cuda_util.c): no fact
    ("cuda_ctx.c:23   UCX  ERROR cuDevicePrimaryCtxGetState(cuda_device, &flags, &active) failed: unrecognized error code 4", None),
    # cuIpcOpenMemHandle is the ucx_log reader's (with the cuda_ipc cache's fatal message)
    ("cuda_ipc_cache.c:284  UCX  ERROR cuIpcOpenMemHandle() failed: invalid device context", None),
    # a warning: UCX goes on (filled, cuda_copy_md.c's ucs_warn of a call's failure)
    ("cuda_copy_md.c:355  UCX  WARN  cuCtxSetFlags(CU_CTX_SYNC_MEMOPS) failed: invalid device context", None),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    assert parser_rows.line_fields(r, line, ("node", "catalogue_name", "api_call"), node="n1") == ([want] if want else [])


def test_ucxpy102_with_its_rkey_consequence():
    res = parser_rows.read_fixture(r, "ucxpy102_cuctxgetdevice_invalid_context.log", "t.log")
    assert [(f.node, f.catalogue_name, f.api_call, f.form, f.evidence.line) for f in res.facts] == [
        ("dgx15", "CUDA_ERROR_INVALID_CONTEXT", "cuCtxGetDevice", "ucx_call", 1)]
    assert res.lines_used == 2  # the rkey unpack failure under it is its consequence


def test_repeats_are_one_fact():
    line = "[1774611987.873495] [kolmogorov:2952803:0]    cuda_copy_md.c:688  UCX  ERROR cuMemGetAddressRange(0x75e0ba800000) error: named symbol not found\n"
    res = r.parse(Artefact(path="t.log", text=line * 3))
    assert len(res.facts) == 1 and res.lines_used == 3

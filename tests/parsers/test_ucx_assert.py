"""ucx_assert: UCX stopping a process on one of its own checks (ucs_assert, ucs_assertv, ucs_bug), on real lines."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import ucx_assert as r

import parser_rows


ROWS = [
    # (line, (node, check, source, source line, condition, message) or None for no fact)
    # openucx/ucx#1998: the prefix before UCX 1.4, [host:pid:thread]
    ("[cn004:16556:0]      wireup.c:309  Assertion `ep->flags & UCP_EP_FLAG_CONNECT_REP_SENT' failed",
     ("cn004", "assertion", "wireup.c", 309, "ep->flags & UCP_EP_FLAG_CONNECT_REP_SENT", None)),
    # openucx/ucx#3730: [host:pid:thread:tid], the line number left-aligned in four columns
    ("[jazz09:67285:0:67285]    ucp_ep.inl:26   Assertion `ucp_ep_config(ep)->key.am_lane != ((ucp_lane_index_t)-1)' failed",
     ("jazz09", "assertion", "ucp_ep.inl", 26, "ucp_ep_config(ep)->key.am_lane != ((ucp_lane_index_t)-1)", None)),
    # openucx/ucx#5656: the prefix left out of the paste
    ("rndv.c:732  Assertion `mem_type_rma_lane != ((ucp_lane_index_t)-1)' failed",
     ("n1", "assertion", "rndv.c", 732, "mem_type_rma_lane != ((ucp_lane_index_t)-1)", None)),
    # openucx/ucx#9528: ucs_assertv's values after "failed: ", gtest's progress before UCX's prefix
    ("[     INFO ] 0 1 16 128 1048512 1048580 4194324 180466 [swx-rdmz-ucx-gpu-01:32224:4:32224] datatype_iter.inl:320  "
     "Assertion `(memh == NULL) || ucp_memh_is_zero_length(memh) || ucp_memh_is_user_memh(memh)' failed: memh=0x2391c100",
     ("swx-rdmz-ucx-gpu-01", "assertion", "datatype_iter.inl", 320,
      "(memh == NULL) || ucp_memh_is_zero_length(memh) || ucp_memh_is_user_memh(memh)", "memh=0x2391c100")),
    # ucs_bug (assert.h "Bug: " _fmt), CONSTRUCTED from the format
    ("[node07:20411:0:20411]      rc_iface.c:1022 Bug: unexpected flush state 3",
     ("node07", "bug", "rc_iface.c", 1022, None, "unexpected flush state 3")),
    # glibc's assert() (a colon after the line number, the function named): not UCX's form (openucx/ucx#1106's words, Open MPI's pml)
    ("rqfreeb: pml_ucx_request.c:59: mca_pml_ucx_recv_completion: Assertion `!(((void*)1L == (req)->req_complete))' failed.", None),
    # an issue title quoting the check without file and line: no fact (openucx/ucx#3730's title)
    ("[mtt] Assertion `ucp_ep_config(ep)->key.am_lane != ((ucp_lane_index_t)-1)' failed", None),
    # CUDA's device-side assert (crt/assert.h: "block: [..], thread: [..] Assertion `x` failed."): cuda_app's, CONSTRUCTED
    ("Indexing.cu:1308: indexSelectLargeIndex: block: [106,0,0], thread: [15,0,0] Assertion `srcIndex < srcSelectDimSize` failed.", None),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    fields = ("node", "check", "source", "source_line", "condition", "message")
    assert parser_rows.line_fields(r, line, fields, node="n1") == ([want] if want else [])


def test_ucx5656_backtrace_is_read_with_the_check():
    res = parser_rows.read_fixture(r, "ucx5656_rndv_assert_cuda_copy_tcp_sm_bare.txt")
    assert [(f.source, f.frame, f.cuda_transport) for f in res.facts] == [("rndv.c", "libucp.so.0.0.0+0x444f0", False)]
    assert res.lines_used == 15  # the check, the header, 12 frames (a JIT frame without object among them), the rule


def test_ucx9528_frames_through_the_cuda_transport():
    res = parser_rows.read_fixture(r, "ucx9528_assertv_memh_gtest_cuda_frames.txt")
    assert [(f.frame, f.cuda_transport) for f in res.facts] == [("ucp_proto_rndv_ats_complete", True)]


def test_ucx1998_old_header_and_handler():
    res = parser_rows.read_fixture(r, "ucx1998_wireup_assert_three_field_prefix.txt")
    assert [(f.node, f.frame) for f in res.facts] == [("cn004", "libucp.so.0+0x30fc9")]
    assert res.lines_used == 9


def test_ucx3730_without_backtrace():
    res = parser_rows.read_fixture(r, "ucx3730_am_lane_assert_source_listing.txt")
    assert [(f.node, f.frame) for f in res.facts] == [("jazz09", None)] and res.lines_used == 1

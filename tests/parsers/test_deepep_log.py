"""deepep_log: DeepEP's kernels and host giving up on a peer, on real lines and DeepEP's format strings."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import deepep_log as r
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "deepep_log"

ROWS = [
    # (line, (path, op, role, side, rank, peer, channel) or None for no fact)
    ("DeepEP dispatch NVL receiver timeout, channel: 6, RDMA: 0, nvl: 0, src NVL: 5, head: 315, tail: 315",
     ("internode", "dispatch", "NVL receiver", "gpu", None, 5, 6)),                    # deepseek-ai/DeepEP#274
    # csrc/kernels/internode.cu's other roles (formats filled)
    ("DeepEP dispatch NVL receiver timeout, channel: 2, RDMA: 1, nvl: 4, src RDMA: 0, src nvl: 3, start: 0, end: 0",
     ("internode", "dispatch", "NVL receiver", "gpu", None, 0, 2)),
    ("DeepEP dispatch RDMA sender timeout, channel: 1, RDMA: 0, nvl: 2, dst RDMA lane: 1, head: 7, tail: 9",
     ("internode", "dispatch", "RDMA sender", "gpu", None, 1, 1)),
    ("DeepEP RDMA sender coordinator timeout, channel: 0, IB: 1, nvl 3, dst IB: 0, tail: 4, remaining: 2",
     ("internode", "dispatch", "RDMA sender coordinator", "gpu", None, 0, 0)),
    ("DeepEP dispatch forwarder timeout (RDMA meta), channel: 10, RDMA: 1, nvl: 6, src RDMA lane: 0, dst NVL: 2, "
     "meta: 0, 0, 0, 0", ("internode", "dispatch", "forwarder (RDMA meta)", "gpu", None, 0, 10)),
    ("DeepEP combine forwarder (RDMA check) timeout, channel: 3, RDMA: 1, nvl: 2, dst RDMA: 0, head: 12, tail: 40",
     ("internode", "combine", "forwarder (RDMA check)", "gpu", None, 0, 3)),
    ("DeepEP combine RDMA receiver timeout, channel: 5, RDMA: 0, nvl: 1, src RDMA: 1, tail: 3, waiting: 8, expect: 9",
     ("internode", "combine", "RDMA receiver", "gpu", None, 1, 5)),
    # csrc/kernels/intranode.cu, internode_ll.cu, utils.cuh (formats filled)
    ("DeepEP timeout for dispatch receivers, rank 3, responsible_channel = 5, tokens remained: 12",
     ("intranode", "dispatch", "receivers", "gpu", 3, None, 5)),
    ("DeepEP timeout for combine senders, rank 1, responsible_channel = 0",
     ("intranode", "combine", "senders", "gpu", 1, None, 0)),
    ("Warning: DeepEP timeout for dispatch receive, rank 9, local_expert_idx 2, src_rank 14",
     ("low_latency", "dispatch", "receive", "gpu", 9, 14, None)),
    ("Warning: DeepEP timeout for barrier, rank 9, dst_rank 14", ("low_latency", "barrier", "barrier", "gpu", 9, 14, None)),
    ("DeepEP timeout check failed: rank = 2, thread = 5, value = 1)", ("intranode", "barrier", "barrier", "gpu", 2, None, None)),
    ("DeepEP timeout check failed: 0 (rank = 4)", ("intranode", "barrier", "barrier", "gpu", 4, None, None)),
    # csrc/deep_ep.cpp, the host's wait for the counts, as Python shows the exception
    ("RuntimeError: DeepEP error: CPU recv timeout", ("intranode", "notify", "CPU recv", "cpu", None, None, None)),
    ("RuntimeError: DeepEP error: timeout (dispatch CPU)", ("internode", "notify", "dispatch CPU", "cpu", None, None, None)),
    # no fact: DeepEP's start-up line, its EPException (the cuda_app reader's), a user's words
    ("DeepEP initialized with NCCL version: 2.28.9 (loaded library)", None),
    ("  what():  Failed: CUDA error /workspace/DeepEP/csrc/deep_ep.cpp:83 'unspecified launch failure'", None),
    ("[Bug] DeepEP internode timeout", None),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    facts = r.parse(Artefact(path="t.log", text=line + "\n")).facts
    got = [(f.path, f.op, f.role, f.side, f.rank, f.peer, f.channel) for f in facts]
    assert got == ([want] if want else [])
    assert r.detect(line + "\n") is (want is not None)


def test_deepep274_four_timeouts_of_two_ranks():
    text = (FIX / "deepep274_internode_nvl_receiver_timeout.log").read_text()
    assert r.detect(text)
    res = r.parse(Artefact(path="test_internode.log", text=text))
    assert [(f.channel, f.evidence.line) for f in res.facts] == [(6, 8), (10, 9), (8, 19), (6, 20)]


ASSERT_ROWS = [
    # (line, (side, source, source_line, condition) or None for no fact)
    # deepseek-ai/DeepEP#392 (real): EP_HOST_ASSERT's EPException under torchrun's label, the carets after its quote
    ("[rank0]: RuntimeError: Failed: Assertion error /workspace/fireworks/third-party/DeepEP/csrc/deep_ep.cpp:1134 "
     "'x.size(0) == topk_idx.size(0) and x.size(0) <= num_max_dispatch_tokens_per_rank'    ^^^^^^^^^^^^",
     ("host", "/workspace/fireworks/third-party/DeepEP/csrc/deep_ep.cpp", 1134,
      "x.size(0) == topk_idx.size(0) and x.size(0) <= num_max_dispatch_tokens_per_rank")),
    # deepseek-ai/DeepEP#114's line (test_internode.py on 16 H100 servers) with GitHub's link markup around
    # 'internode.cu:1713' taken out
    ("RuntimeError: Failed: Assertion error /workspace/DeepEP_splitChannel/csrc/kernels/internode.cu:1713 "
     "'num_max_nvl_chunked_recv_tokens / num_rdma_ranks > std::max(num_max_rdma_chunked_send_tokens, "
     "num_max_nvl_chunked_send_tokens)'",
     ("host", "/workspace/DeepEP_splitChannel/csrc/kernels/internode.cu", 1713,
      "num_max_nvl_chunked_recv_tokens / num_rdma_ranks > std::max(num_max_rdma_chunked_send_tokens, "
      "num_max_nvl_chunked_send_tokens)")),
    ("terminate called after throwing an instance of 'EPException'", None),
    ("  what():  Failed: Assertion error /build/DeepEP/csrc/deep_ep.cpp:230 'num_ranks <= NUM_MAX_NVL_PEERS",  # CONSTRUCTED cut
     ("host", "/build/DeepEP/csrc/deep_ep.cpp", 230, "num_ranks <= NUM_MAX_NVL_PEERS")),
    # EP_DEVICE_ASSERT's printf (format filled), and DeepGEMM's old DG_HOST_ASSERT with the same words: not DeepEP's
    ("Assertion failed: /build/DeepEP/csrc/kernels/internode_ll.cu:315, condition: num_recv_tokens <= 128",
     ("device", "/build/DeepEP/csrc/kernels/internode_ll.cu", 315, "num_recv_tokens <= 128")),
    ("Assertion failed: /opt/deep_gemm/include/deep_gemm/fp8_gemm.cuh:40, condition: n % BLOCK_N == 0", None),
    # other checks: DeepEP's CUDA errors (the cuda_app reader's), PyTorch's device-side assert, glog
    ("RuntimeError: Failed: CUDA error /build/DeepEP/csrc/deep_ep.cpp:112 'invalid resource handle'", None),
    ("../aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: block: [545,0,0], thread: [96,0,0] "
     "Assertion `srcIndex < srcSelectDimSize` failed.", None),
]


@pytest.mark.parametrize("line,want", ASSERT_ROWS)
def test_assertion_line(line, want):
    facts = [f for f in r.parse(Artefact(path="t.log", text=line + "\n")).facts if f.kind == "deepep_assertion_failed"]
    assert [(f.side, f.source, f.source_line, f.condition) for f in facts] == ([want] if want else [])
    assert r.detect(line + "\n") is (want is not None)


def test_deepep392_fixture_one_check():
    text = (FIX / "deepep392_low_latency_dispatch_host_assert.log").read_text()
    facts = r.parse(Artefact(path="d.log", text=text)).facts
    assert [(f.kind, f.source_line, f.evidence.line) for f in facts] == [("deepep_assertion_failed", 1134, 3)]

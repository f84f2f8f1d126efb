"""Mooncake's transfer engine: failed RDMA work completions of the KV-cache transfer that SGLang's
and vLLM's prefill/decode disaggregation run over it, and the NICs it stops using after them.
Mooncake logs through glog into the serving process's own output, so its lines are looked for
anywhere in a file.

Sample content (real, fixtures/artefacts/mooncake_transfer/)::

    E0603 20:16:59.104586 27322 worker_pool.cpp:271] Worker: Process failed for slice (opcode: 1, source_addr: 0x7f20fe0f1680, length: 65536, dest_addr: 0x7f3d820f3a80, local_nic: mlx5_7, peer_nic: 10.93.81.13:15729@mlx5_0, dest_rkey: 2116517, retry_cnt: 0): transport retry counter exceeded   (sgl-project/sglang#6854)
    W0724 03:14:20.702893 104002 worker_pool.cpp:303] Too many errors found in local RNIC 10.0.2.69:15858@mlx5_bond_2, mark it inactive   (sgl-project/sglang#8324)
    E0724 03:14:20.707079 104002 rdma_context.cpp:261] Context is not active: mlx5_bond_2

The failed slice's status is libibverbs' ``ibv_wc_status_str()`` (mooncake-transfer-engine
src/transport/rdma_transport/worker_pool.cpp ``performPollCq``: "Worker: Process failed for slice
(opcode: .., source_addr: .., length: .., dest_addr: .., local_nic: <device>, peer_nic:
<host:port>@<device>, dest_rkey: .., retry_cnt: ..): <status>"), so it is numbered exactly as
knowledge/ib_wc_status.yaml numbers NCCL's, UCX's and the kernel's completion errors. After more
than 32 failed completions and none good, the worker marks the local NIC inactive ("Too many
errors found in local RNIC <nic path>, mark it inactive"; "Failed to establish peer endpoints in
local RNIC ..., mark it inactive" when connections fail); the transfers on it then fail with
"Context is not active: <device>" (rdma_context.cpp) until its monitor re-enables it.

Facts: ``mooncake_slice_failed`` per failed slice whose status is on the line (a line whose head
the paste cut still gives local_nic, peer and status), ``mooncake_nic_inactive`` per NIC marked
inactive. The "Context is not active" lines and a slice line cut before its status are counted
as read only beside those facts (alone, they are left to the catch-all). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts import knowledge
from stethoscope.facts.kinds.app import MooncakeNicInactive, MooncakeSliceFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "mooncake_transfer"

# ... local_nic: mlx5_7, peer_nic: 10.93.81.13:15729@mlx5_0, dest_rkey: 2116517, retry_cnt: 0): transport retry counter exceeded
_SLICE = re.compile(r"\blocal_nic: (?P<local>[\w.:-]{1,64}), peer_nic: (?:(?P<peer>[^\s,@]{1,80})@)?(?P<peer_nic>[\w.:-]{1,64}), "
                    r"dest_rkey: \d{1,12}, retry_cnt: (?P<retry>\d{1,6})\): (?P<status>[^\n]{1,80}?)\s*$")
# Worker: Process failed for slice (opcode: 1, source_addr: 0x7f61fc      (a line cut before its status)
_SLICE_HEAD = "Worker: Process failed for slice ("
# Too many errors found in local RNIC 10.0.2.69:15858@mlx5_bond_2, mark it inactive
# Failed to establish peer endpoints in local RNIC 10.0.2.69:15858@mlx5_bond_2, mark it inactive
_INACTIVE = re.compile(r"\b(?P<why>Too many errors found|Failed to establish peer endpoints) in local RNIC "
                       r"(?P<path>(?:[^\s,@]{1,80}@)?(?P<dev>[\w.:-]{1,64})), mark it inactive")
# E0724 03:14:20.707079 104002 rdma_context.cpp:261] Context is not active: mlx5_bond_2
_NOT_ACTIVE = "] Context is not active: "
_LITERALS = ("local_nic: ", "in local RNIC ", _NOT_ACTIVE, _SLICE_HEAD)


def detect(head: str) -> bool:
    return ("local_nic: " in head and "retry_cnt: " in head) or "in local RNIC " in head


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    table = knowledge.load("ib_wc_status.yaml")
    consequences: list[int] = []
    for n, line in iter_lines_with(_LITERALS, artefact):
        if (m := _SLICE.search(line)) is not None:
            entry = table.leading_name(m["status"])
            if entry is None or entry.name != m["status"].rstrip("."):
                consequences.append(n)  # a status libibverbs does not name: read only beside the others
                continue
            result.lines_used += 1
            fb.add(MooncakeSliceFailed, n, status=entry.status, status_text=entry.name, local_nic=m["local"],
                   peer_nic=m["peer_nic"], peer=m["peer"], retry_cnt=int(m["retry"]))
        elif (m := _INACTIVE.search(line)) is not None:
            result.lines_used += 1
            fb.add(MooncakeNicInactive, n, device=m["dev"], nic_path=m["path"],
                   reason="completion_errors" if m["why"].startswith("Too many") else "connect_failed")
        else:
            consequences.append(n)
    if result.facts:
        # the transfers failing on a NIC Mooncake disabled, and slice lines cut before their status
        result.lines_used += len(consequences)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"local_nic: [\w.:-]+, peer_nic: \S+, dest_rkey: \d+, retry_cnt: \d+\): ",
              r"(?:Too many errors found|Failed to establish peer endpoints) in local RNIC \S+, mark it inactive")

"""torch_log's reading of PyTorch 1.x ProcessGroupNCCL's options block (facts/parsers/torch_pg_options.py), on the real
lines of pytorch/pytorch#88000 (1.13 under torchrun, ranks 0 and 1, the second block cut by the paste)."""
from __future__ import annotations

from stethoscope.facts.parsers import torch_log
from stethoscope.facts.parsers.base import Artefact

# pytorch/pytorch#88000, the reporter's output as pasted (its last line cut there)
BLOCK = """$ python -m torch.distributed.run --nproc_per_node=2 test_nccl_timeout.py
WARNING: Logging before InitGoogleLogging() is written to STDERR
I1028 12:13:38.405081 632355 ProcessGroupNCCL.cpp:843] [Rank 0] NCCL watchdog thread started!
I1028 12:13:38.405865 632324 ProcessGroupNCCL.cpp:666] [Rank 0] ProcessGroupNCCL initialized with following options:
NCCL_ASYNC_ERROR_HANDLING: 1
NCCL_DESYNC_DEBUG: 0
NCCL_BLOCKING_WAIT: 0
TIMEOUT(ms): 5000
USE_HIGH_PRIORITY_STREAM: 0
WARNING: Logging before InitGoogleLogging() is written to STDERR
I1028 12:13:38.412765 632358 ProcessGroupNCCL.cpp:843] [Rank 1] NCCL watchdog thread started!
I1028 12:13:38.412766 632325 ProcessGroupNCCL.cpp:666] [Rank 1] ProcessGroupNCCL initialized with following options:
NCCL_ASYNC_ERROR_HANDLING: 1
NCCL_DES
"""


def _read(text: str):
    assert torch_log.detect(text)
    return torch_log.parse(Artefact(path="block1.txt", text=text, node="n1"))


def _options(res) -> list[dict]:
    """Each torch_pg_nccl_options fact's fields, without its id, node, evidence and kind."""
    return [{k: v for k, v in f.model_dump().items() if k not in ("id", "node", "evidence", "kind")}
            for f in res.facts if f.kind == "torch_pg_nccl_options"]


def test_each_rank_s_options_block_is_one_fact():
    res = _read(BLOCK)
    assert _options(res) == [
        dict(rank=0, pg_rank=0, async_error_handling=1, blocking_wait=0, desync_debug=0, timeout_ms=5000,
             high_priority_stream=0, complete=True, form="block"),
        # cut after its first option line: read as far as it goes
        dict(rank=1, pg_rank=1, async_error_handling=1, blocking_wait=None, desync_debug=None, timeout_ms=None,
             high_priority_stream=None, complete=False, form="block"),
    ]
    assert [f.evidence.line for f in res.facts if f.kind == "torch_pg_nccl_options"] == [4, 12]
    # the blocks' lines and the watchdog's started lines are read; the cut "NCCL_DES", glog's own warning and the
    # command typed are not this reader's
    assert res.lines_used == 6 + 2 + 2  # block 0 (header and 5), the watchdog lines, block 1 (header and 1)
    assert not [f for f in res.facts if f.kind != "torch_pg_nccl_options"]


def test_an_option_line_alone_or_another_message_is_no_block():
    # the option lines without their header, and the watchdog's line terminated with an exception, are not read here
    res = _read("I1028 12:13:38.405081 632355 ProcessGroupNCCL.cpp:843] [Rank 0] NCCL watchdog thread started!\n"
                "NCCL_ASYNC_ERROR_HANDLING: 1\nNCCL_BLOCKING_WAIT: 0\n")
    assert [f.kind for f in res.facts] == [] and res.lines_used == 1


# PyTorch 2.3+'s one-line options and environments lines, as two public repositories' logs hold them (the search
# index's file ids 12140220341: LLaMA-Factory with DeepSpeed, 8 ranks; 69752868257: a torchrun job, 2.5's prefix)
LINES_23 = """WARNING: Logging before InitGoogleLogging() is written to STDERR
I0527 15:16:51.665375 58626 ProcessGroupNCCL.cpp:869] [PG 0 Rank 2] ProcessGroupNCCL initialization options: size: 8, global rank: 2, TIMEOUT(ms): 180000000000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: 0
I0527 15:16:51.665462 58626 ProcessGroupNCCL.cpp:878] [PG 0 Rank 2] ProcessGroupNCCL environments: NCCL version: 2.18.3, TORCH_NCCL_ASYNC_ERROR_HANDLING: 1, TORCH_NCCL_DUMP_ON_TIMEOUT: 0, TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC: 60000, TORCH_NCCL_DESYNC_DEBUG: 0, TORCH_NCCL_ENABLE_TIMING: 0, TORCH_NCCL_BLOCKING_WAIT: 0, TORCH_DISTRIBUTED_DEBUG: OFF, TORCH_NCCL_ENABLE_MONITORING: 1, TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC: 600, TORCH_NCCL_TRACE_BUFFER_SIZE: 0, TORCH_NCCL_COORD_CHECK_MILSEC: 1000, TORCH_NCCL_NAN_CHECK: 0
I20241209 23:39:42.495619 138559122262912 ProcessGroupNCCL.cpp:905] [PG ID 0 PG GUID 0 Rank 1] ProcessGroupNCCL initialization options: size: 2, global rank: 1, TIMEOUT(ms): 600000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: 0
"""


def test_one_line_options_of_2x_with_their_environments_line():
    res = _read(LINES_23)
    assert _options(res) == [
        dict(rank=2, pg_rank=2, async_error_handling=1, blocking_wait=0, desync_debug=0, timeout_ms=180000000000,
             high_priority_stream=0, complete=True, form="line"),
        # 2.5's prefix; the environments line not pasted: the modes unknown
        dict(rank=1, pg_rank=1, async_error_handling=None, blocking_wait=None, desync_debug=None, timeout_ms=600000,
             high_priority_stream=0, complete=True, form="line"),
    ]
    assert [f.evidence.line for f in res.facts if f.kind == "torch_pg_nccl_options"] == [2, 4]
    assert res.lines_used == 3

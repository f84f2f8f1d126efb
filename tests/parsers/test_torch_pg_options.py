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


def test_each_rank_s_options_block_is_one_fact():
    res = _read(BLOCK)
    got = [{k: v for k, v in f.model_dump().items() if k not in ("id", "node", "evidence", "kind")}
           for f in res.facts if f.kind == "torch_pg_nccl_options"]
    assert got == [
        dict(rank=0, pg_rank=0, async_error_handling=1, blocking_wait=0, desync_debug=0, timeout_ms=5000,
             high_priority_stream=0, complete=True),
        # cut after its first option line: read as far as it goes
        dict(rank=1, pg_rank=1, async_error_handling=1, blocking_wait=None, desync_debug=None, timeout_ms=None,
             high_priority_stream=None, complete=False),
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

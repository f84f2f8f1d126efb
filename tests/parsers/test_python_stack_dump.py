"""python_stack_dump: py-spy's and CPython faulthandler's per-thread stacks; where a thread waits in torch.distributed."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import python_stack_dump
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/python_stack_dump"


def _facts(text: str):
    art = Artefact(path="t.txt", text=text, node="node1")
    art.normalise()
    return python_stack_dump.parse(art).facts


def test_accelerate3104_py_spy_thread_in_all_gather():
    # huggingface/accelerate#3104: six threads; the active one inside distributed_c10d's all_gather_into_tensor
    text = (FIX / "accelerate3104_py_spy_zero3_allgather.txt").read_text()
    assert python_stack_dump.detect(text)
    facts = _facts(text)
    assert [(f.thread, f.state, f.frames) for f in facts] == [
        ("42", "idle", 13), ("928", "idle", 5), ("4076", "idle", 0), ("4077", "idle", 0), ("4078", "idle", 0), ("4079", "active", 7)]
    main, last = facts[0], facts[-1]
    assert (main.name, main.top, main.torch_call) == ("MainThread", "backward", None)
    assert (last.top, last.torch_call, last.phase, last.tool) == ("all_gather_into_tensor", "all_gather_into_tensor", "collective", "py-spy")
    assert last.evidence.line == 24


def test_torchtitan810_faulthandler_behind_rank_labels():
    # pytorch/torchtitan#810: "[rank0]:Thread 0x... (most recent call first):" and its File lines
    text = (FIX / "torchtitan810_faulthandler_rank_labels.txt").read_text()
    facts = _facts(text)
    assert [(f.tool, f.thread, f.frames, f.top) for f in facts] == [
        ("faulthandler", "0x00007fdcbce00640", 5, "wait"), ("faulthandler", "0x00007fdfa4a89400", 0, None)]


def test_faulthandler_current_thread_in_init_and_cuda_sync():
    # the forms of Python/traceback.c: "Current thread 0x...", dump_frame's '  File "...", line N in f'
    text = ('Thread 0x00007f0c1a2b3740 (most recent call first):\n'
            '  File "/usr/lib/python3.10/site-packages/torch/cuda/__init__.py", line 801 in synchronize\n'
            '  File "/w/train.py", line 12 in step\n'
            '\n'
            'Current thread 0x00007f0c1a2b3741 (most recent call first):\n'
            '  File "/usr/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 4077 in _store_based_barrier\n'
            '  File "/usr/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 1400 in init_process_group\n')
    facts = _facts(text)
    assert [(f.current, f.torch_call, f.phase) for f in facts] == [
        (False, "synchronize", "cuda_sync"), (True, "_store_based_barrier", "init")]


@pytest.mark.parametrize("text", [
    # Python's exception traceback and PyTorch's C++ one: other readers'
    'Traceback (most recent call last):\n  File "/w/train.py", line 3, in <module>\n    main()\n',
    "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:632 (most recent call first):\n",
    # gdb's thread header: gdb_backtrace's
    "Thread 4 (Thread 0x7fa472dd2700 (LWP 14197)):\n#0  0x00007fffa99437f8 in accept () from /usr/lib64/libpthread.so.0\n",
    # prose about a thread
    "Thread 2 (idle) is what I see, then it hangs\n",
])
def test_other_forms_are_not_this(text):
    assert not python_stack_dump.detect(text)
    assert _facts(text) == []

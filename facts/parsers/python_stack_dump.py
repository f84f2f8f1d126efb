"""Python stack dumps of a live process: ``py-spy dump --pid PID`` and CPython's faulthandler
(``faulthandler.dump_traceback``, ``kill -SIGUSR1`` with ``faulthandler.register``, the dump of a
``Fatal Python error``), posted when a job hangs to show where each rank's threads wait.

py-spy (src/dump.rs ``print_traces``, src/stack_trace.rs ``status_str``) heads each thread with
``Thread <id> (<idle|active|active+gil>)`` and its name in quotes, then one indented frame a line,
innermost first: ``    <function> (<file>:<line>)``. CPython's faulthandler (Python/traceback.c
``write_thread_id``, ``dump_frame``) heads each thread with ``Thread 0x<id> (most recent call
first):`` (``Current thread`` for the one that dumps; ``Stack (most recent call first):`` when only
it is dumped), then ``  File "<file>", line <n> in <function>``, innermost first too. Sample content
(real, huggingface/accelerate#3104: a ZeRO-3 step whose all-gather never returned)::

    Thread 42 (idle): "MainThread"
        backward (torch/autograd/__init__.py:266)
    Thread 4079 (active)
        all_gather_into_tensor (torch/distributed/distributed_c10d.py:2709)
        wrapper (torch/distributed/c10d_logger.py:72)

and (real, pytorch/torchtitan#810: faulthandler's dump of a hung rank, behind torchrun's rank label)::

    [rank0]:Thread 0x00007fdcbce00640 (most recent call first):
    [rank0]:  File "/home/vasiliy/.conda/envs/pytorch/lib/python3.11/threading.py", line 324 in wait

Facts: ``python_stack`` per thread: the tool, the thread's id, name and py-spy's state, how many
frames were read, the innermost function, and the innermost call of ``torch.distributed`` or
``torch.cuda`` on the stack with its phase (``collective``: a collective, barrier or send/recv of
distributed_c10d; ``init``: init_process_group, new_group, the store barrier or a rendezvous;
``cuda_sync``: torch.cuda.synchronize). A snapshot of one moment, like gdb's native stacks
(gdb_backtrace): no rule takes it for a hang by itself. Python's exception tracebacks (``Traceback
(most recent call last):``) are other readers'. Empty input, or no thread header: not recognised.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import PythonStack  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "python_stack_dump"

# Thread 36455 (idle): "MainThread"        (deepspeedai/DeepSpeed#5394; py-spy src/dump.rs: "Thread {} ({}): \"{}\"")
# Thread 4079 (active)                     (huggingface/accelerate#3104; without a name: "Thread {} ({})")
# Thread 0x7F3A2B (active+gil): "Thread-1" (the form only: format_threadid's "{:#X}" without an OS thread id, status "active+gil")
_PYSPY_THREAD = re.compile(r"^[ \t]*Thread (?P<id>\d{1,20}|0[xX][0-9a-fA-F]{1,16}) \((?P<state>idle|active\+gil|active)\)"
                           r"(?:: \"(?P<name>[^\"\n]{0,200})\")?[ \t\r]*$")
#     backward (torch/autograd/__init__.py:266)                   (huggingface/accelerate#3104; "    {} ({}:{})")
#     <module> (src/model_back/healing/scripts/fine_tune_accelerate.py:587)
#     allgather_f                                                 (the same paste, cut: no file, the excerpt's end)
_PYSPY_FRAME = re.compile(r"^(?: {4}|\t)(?P<func>[^\s(][^ \n]{0,300}) \((?P<file>[^\n()]{1,1000}?)(?::(?P<line>\d{1,7}))?\)[ \t\r]*$")
# Thread 0x00007fdcbce00640 (most recent call first):     (pytorch/torchtitan#810; Python/traceback.c write_thread_id)
# Current thread 0x00007f0c1a2b3740 (most recent call first):   (the form only: the dumping thread, is_current)
# Stack (most recent call first):                          (the form only: faulthandler.dump_traceback(all_threads=False))
_FH_THREAD = re.compile(r"^[ \t]*(?:(?P<current>Current thread)|Thread) (?P<id>0x[0-9a-fA-F]{1,16})(?: \[[^\]\n]{0,100}\])?"
                        r" \(most recent call first\):[ \t\r]*$|^[ \t]*Stack \(most recent call first\):[ \t\r]*$")
#   File "/home/vasiliy/.conda/envs/pytorch/lib/python3.11/threading.py", line 324 in wait   (pytorch/torchtitan#810; dump_frame)
_FH_FRAME = re.compile(r"^[ \t]*File \"(?P<file>[^\"\n]{1,1000})\", line (?P<line>\d{1,7}) in (?P<func>[^\s]{1,300})[ \t\r]*$")

_SIGNATURES = (
    r"(?m)^[ \t]*Thread (?:\d{1,20}|0[xX][0-9a-fA-F]{1,16}) \((?:idle|active\+gil|active)\)(?:: \"[^\"\n]{0,200}\")?[ \t\r]*$",
    r"(?m)^[ \t]*(?:Current thread|Thread) 0x[0-9a-fA-F]{1,16}(?: \[[^\]\n]{0,100}\])? \(most recent call first\):",
)
_DETECT = tuple(re.compile(s) for s in _SIGNATURES)

# torch/distributed/distributed_c10d.py's collectives, barriers and point-to-point calls
_COLLECTIVES = frozenset((
    "all_reduce", "all_reduce_coalesced", "all_gather", "all_gather_into_tensor", "_all_gather_base", "all_gather_coalesced",
    "all_gather_object", "reduce_scatter", "reduce_scatter_tensor", "_reduce_scatter_base", "broadcast",
    "broadcast_object_list", "reduce", "all_to_all", "all_to_all_single", "gather", "gather_object", "scatter",
    "scatter_object_list", "barrier", "monitored_barrier", "send", "recv", "isend", "irecv", "batch_isend_irecv",
    "send_object_list", "recv_object_list"))
# distributed_c10d.py's process-group set-up (the store barrier waits for every rank to join)
_INIT = frozenset(("init_process_group", "new_group", "new_subgroups", "new_subgroups_by_enumeration", "_new_group_with_tag",
                   "_store_based_barrier", "_new_process_group_helper"))


def _torch_call(func: str, path: str) -> tuple[str, str] | None:
    """(call, phase) of a frame of torch.distributed or torch.cuda, else None."""
    p = path.replace("\\", "/")
    if p.endswith("torch/distributed/distributed_c10d.py"):
        if func in _COLLECTIVES:
            return func, "collective"
        if func in _INIT:
            return func, "init"
    elif "torch/distributed/" in p and ("/rendezvous" in p or p.endswith("/rendezvous.py")):
        return func, "init"
    elif p.endswith("torch/cuda/__init__.py") and func == "synchronize":
        return func, "cuda_sync"
    return None


def detect(head: str) -> bool:
    return "Thread " in head and any(d.search(head) for d in _DETECT)


class _Stack:
    __slots__ = ("tool", "at", "thread", "name", "state", "current", "frames", "top", "call", "phase")

    def __init__(self, tool: str, at: int, thread: str | None, name: str | None, state: str | None, current: bool):
        self.tool, self.at, self.thread, self.name, self.state, self.current = tool, at, thread, name, state, current
        self.frames, self.top, self.call, self.phase = 0, None, None, None

    def frame(self, func: str, path: str | None) -> None:
        if self.frames == 0:
            self.top = func
        self.frames += 1
        if self.call is None and path and (hit := _torch_call(func, path)):
            self.call, self.phase = hit

    def emit(self, fb: FactBuilder) -> None:
        fb.add(PythonStack, self.at, tool=self.tool, thread=self.thread, name=self.name, state=self.state,
               current=self.current, frames=self.frames, top=self.top, torch_call=self.call, phase=self.phase)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    stack: _Stack | None = None
    for n, line in enumerate(artefact.lines, 1):
        if "Thread " in line or "thread 0x" in line or "Stack (" in line:
            t = _PYSPY_THREAD.match(line)
            f = None if t else _FH_THREAD.match(line)
            if t or f:
                if stack is not None:
                    stack.emit(fb)
                stack = (_Stack("py-spy", n, t["id"], t["name"], t["state"], False) if t else
                         _Stack("faulthandler", n, f["id"], None, None, bool(f["current"])))
                result.lines_used += 1
                continue
        if stack is None:
            continue
        if stack.tool == "py-spy":
            m = _PYSPY_FRAME.match(line)
            if m:
                stack.frame(m["func"], m["file"])
                result.lines_used += 1
            elif line[:4] == "    " and line.strip() and stack.frames and "(" not in line:
                # the paste's last frame cut before its file ("    allgather_f"): counted, no file to place it
                stack.frame(line.strip(), None)
                result.lines_used += 1
        elif "File \"" in line and (m := _FH_FRAME.match(line)):
            stack.frame(m["func"], m["file"])
            result.lines_used += 1
    if stack is not None:
        stack.emit(fb)
    return result


#: the line signatures this reader owns (facts/classify.py matches all readers' in one pass)
SIGNATURES = _DETECT

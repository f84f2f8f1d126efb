"""Horovod refusing a collective because it has already shut down, in any program's output (the
framework's exception, TensorFlow's op-kernel warning, mpirun's ``[1,0]<stderr>:`` lines).

Once Horovod's background loop stops (a rank raised an exception or died, or a rank finished its
training loop and called shutdown while the others still submit tensors), every tensor a rank
submits after that is answered with ``SHUT_DOWN_ERROR`` (horovod/common/operations.cc, later
common.h), which the framework raises or logs. Its text, from the public sources::

    Horovod has been shut down. This has been caused by an exception on one of the rank or an
    attempt to allreduce, allgather or broadcast a tensor after one of the ranks has finished
    execution.                                         (Status::Aborted, before horovod/horovod#350)
    Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt
    to allreduce, allgather or broadcast a tensor after one of the ranks finished execution. If the
    shutdown was caused by an exception, you should see the exception in the log before the first
    shutdown message.       (since horovod/horovod#350, 2018: Status::Aborted, later Status::UnknownError)

Sample content (real lines, from the public threads named; fixtures/artefacts/horovod_shutdown/)::

    2018-07-30 06:41:52.525932: W tensorflow/core/framework/op_kernel.cc:1318] OP_REQUIRES failed at mpi_ops.cc:422 : Aborted: Horovod has been shut down. This was caused by ...    (horovod/horovod#410)
    AbortedError (see above for traceback): Horovod has been shut down. This was caused by an exception on one of the ranks ...
    \t [[Node: HorovodBroadcast_fully_connected_1_weights_RMSProp_1_0 = HorovodBroadcast[T=DT_FLOAT, root_rank=0, ...]]    (horovod/horovod#534)

A viewer may wrap the message anywhere ("Horovod has b" / "een shut down. ..."): its second
clause, "an attempt to allreduce, allgather or", is looked for too, and a line of it right after a
line with the head is the same message.

Facts: one ``horovod_shutdown`` per file: ``messages`` (how many; every refused tensor repeats it),
``operation`` and ``op_name``, the Horovod op the framework names beside the first message (TF's
``[[Node: HorovodBroadcast_...`` after it, ``Node: '.../HorovodAllreduce_grads_0'`` before it), when
it does. Empty input, or no such message: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.launch import HorovodShutdown  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "horovod_shutdown"

# Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to allreduce, ...
_HEAD = "Horovod has been shut down"
# ... an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution.
#   (the second clause of every form: the one a viewer's wrap of the head at a fixed width leaves whole,
#   "... : Unknown: Horovod has b" / "een shut down. This was caused by ... an attempt to allreduce, allgather or ...")
_HEAD2 = "an attempt to allreduce, allgather or"
# [[Node: HorovodBroadcast_fully_connected_1_weights_RMSProp_1_0 = HorovodBroadcast[T=DT_FLOAT, ...   (TF 1.x, after it)
# Node: 'DistributedAdam_Allreduce/cond/HorovodAllreduce_grads_0'                                    (TF 2.x, before it)
_OP = re.compile(r"\b(?P<name>Horovod(?P<op>Allreduce|Allgather|Broadcast|Alltoall|Reducescatter|ReduceScatter|Join|Barrier)"
                 r"(?:_[\w.]{1,200})?)")
_OP_WINDOW = (2, 3)  # lines before and after the first message a framework names the op on


def detect(text: str) -> bool:
    return _HEAD in text or _HEAD2 in text  # asked only where SIGNATURES matched (facts/classify.py)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    first: int | None = None
    messages = 0
    last_head = -2  # 0-based line of the last head seen
    for n, line in iter_lines_with((_HEAD, _HEAD2), artefact):
        i = n - 1
        result.lines_used += 1
        if _HEAD not in line and last_head == i - 1:
            continue  # the wrapped rest of the message on the line before
        if _HEAD in line:
            last_head = i
        messages += 1
        if first is None:
            first = i
    if first is None:
        return result
    op = None
    for i in range(max(0, first - _OP_WINDOW[0]), min(len(lines), first + _OP_WINDOW[1] + 1)):
        op = _OP.search(lines[i])
        if op is not None:
            break
    fb.add(HorovodShutdown, first + 1, messages=messages,
           operation=op["op"].lower() if op else None, op_name=op["name"] if op else None)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_HEAD, _HEAD2)

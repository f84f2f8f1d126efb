"""horovod_shutdown: Horovod refusing a collective after it has shut down (SHUT_DOWN_ERROR)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import horovod_shutdown
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/horovod_shutdown"


def parse_text(text: str):
    art = Artefact(path="t.log", text=text, node="node1")
    art.normalise()
    return horovod_shutdown.parse(art).facts


@pytest.mark.parametrize("name,line,messages,operation,op_name", [
    # TF 1.x's op-kernel warning ("Aborted:"), three times after mpirun's abort box; the last cut
    ("horovod410_tf_op_kernel_aborted_after_mpirun_abort.log", 6, 3, None, None),
    # TF 1.8's AbortedError with the refused broadcast's node after it, and TF's INFO line quoting it again
    ("horovod534_aborted_error_broadcast_node.log", 1, 2, "broadcast", "HorovodBroadcast_fully_connected_1_weights_RMSProp_1_0"),
    # TF 2.x ("Unknown:", Status::UnknownError)
    ("dle972_tf_op_kernel_unknown_ncf.log", 2, 3, None, None),
])
def test_shutdown_forms(name, line, messages, operation, op_name):
    text = (FIX / name).read_text()
    assert horovod_shutdown.detect(text)
    [f] = parse_text(text)
    assert (f.evidence.line, f.messages, f.operation, f.op_name) == (line, messages, operation, op_name)


def test_oldest_form_wrapped_is_one_message():
    # the text before horovod/horovod#350 (operations.cc's Status::Aborted), wrapped by a viewer mid-word
    text = ("AbortedError (see above for traceback): Horovod has been shut down. This has been ca\n"
            "used by an exception on one of the rank or an attempt to allreduce, allgather or bro\n"
            "adcast a tensor after one of the ranks has finished execution.\n")
    [f] = parse_text(text)
    assert (f.evidence.line, f.messages) == (1, 1)


def test_head_wrapped_away_and_op_named_before():
    # a wrap inside the head leaves the second clause; TF 2.x names the node on a line before the message
    text = ("[1,0]<stderr>:Node: 'DistributedAdam_Allreduce/cond/HorovodAllreduce_grads_0'\n"
            "[1,0]<stderr>:2020-09-25 16:52:53.640992: W tensorflow/core/framework/op_kernel.cc:1651] OP_REQUIRES failed at mpi_ops.cc:402 : Unknown: Horovod has b\n"
            "een shut down. This was caused by an exception on one of the ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution.\n")
    [f] = parse_text(text)
    assert (f.messages, f.operation, f.op_name) == (1, "allreduce", "HorovodAllreduce_grads_0")


def test_near_misses_read_nothing():
    for text in ("Horovod has not been initialized; use hvd.init().\n",
                 "horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed: unhandled cuda error\n",
                 "Horovod shut down cleanly after training\n", ""):
        assert not horovod_shutdown.detect(text)
        assert parse_text(text) == []

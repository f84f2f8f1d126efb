"""c10d's explanation of an NCCL result (getNcclErrorDetailStr, NCCLUtils.cpp) pasted on a line of its own, the
``NCCL error in: ...`` line before it left out (issue 11, wild sweep r90)."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import torch_log
from stethoscope.facts.parsers.base import Artefact

# turingaicloud/quickstart#6: the traceback's head, torch 1.12-1.13's longer wording of the ncclSystemError text
SYSTEM = ("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. It can be "
          "also caused by unexpected exit of a remote peer, you can check NCCL warnings for failure reason and see if there "
          "is connection closure by a peer.\n"
          '  File "/mnt/home/schoiaj/.Miniconda3/envs/coh_torch/lib/python3.10/site-packages/transformers/modeling_utils.py", '
          "line 2493, in from_pretrained\n"
          "    model = cls(config, *model_args, **model_kwargs)\n")


def parse(text: str):
    return torch_log.parse(Artefact(path="traceback.txt", text=text, node="node1"))


def test_the_detail_line_alone_is_a_torch_log_and_an_nccl_error():
    assert torch_log.detect(SYSTEM)
    [e] = [f for f in parse(SYSTEM).facts if f.kind == "torch_nccl_error"]
    assert (e.nccl_error, e.evidence.line) == ("ncclSystemError", 1)
    assert e.message.startswith("System call (e.g. socket, malloc)")


@pytest.mark.parametrize("text", [
    # the enum name in prose, no c10d text after it
    "I keep getting ncclSystemError: any idea?\n",
    "ncclSystemError: please help\n",
    # a title naming the error with other words
    "ncclSystemError with multi-node multi-gpu training\n",
    # c10d's text without the enum name before it
    "System call (e.g. socket, malloc) or external library call failed or device error.\n",
])
def test_near_misses_are_not_a_torch_log(text):
    assert not torch_log.detect(text)

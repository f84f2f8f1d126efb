"""ft_peer_access: the FasterTransformer allocator's 'Device A peer access Device B is not available.' (real lines:
InternLM/lmdeploy#2076, NVIDIA/TensorRT-LLM#1034; the earlier FasterTransformer wording CONSTRUCTED from its allocator.h)."""
import pytest

from stethoscope.facts.parsers import ft_peer_access

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_repeated_warning_is_one_fact_per_pair():
    res = _parse(ft_peer_access, "ft_peer_access/lmdeploy2076_turbomind_two_gpus.log")
    assert [(f.device, f.peer, f.framework, f.lines, f.evidence.line) for f in res.facts] == [(0, 1, "TM", 20, 1)]
    assert res.lines_used == 20


def test_tensorrt_llm_and_earlier_fasterTransformer_forms():
    text = ("[TensorRT-LLM][WARNING] Device 1 peer access Device 0 is not available.\n"  # TensorRT-LLM#1034's form, the pair CONSTRUCTED
            "[FT][WARNING] Device 0 peer access Device 1 is not avaiable. This may lead to peer access errors when doing "
            "tensor/pipeline parallel!\n")
    assert ft_peer_access.detect(text)
    assert [(f.device, f.peer, f.framework) for f in _parse(ft_peer_access, text=text).facts] == [(1, 0, "TensorRT-LLM"), (0, 1, "FT")]


def test_quoted_in_a_title():
    # the title quotes the line: the pair is named all the same
    text = '[Feature] Cannot find a way to disable custom_all_reduce: getting "[TM][WARNING] Device 0 peer access Device 1 is not available." messages\n'
    assert [(f.device, f.peer) for f in _parse(ft_peer_access, text=text).facts] == [(0, 1)]


@pytest.mark.parametrize("line", [
    "Device 0 peer access Device 1 is enabled",  # the other outcome
    "peer access is not supported between these two devices",  # CUDA's error text: cuda_app's
])
def test_near_misses(line):
    assert not ft_peer_access.detect(line) or not _parse(ft_peer_access, text=line + "\n").facts

"""accelerate_p2p: Accelerate's RTX 40-series P2P/IB refusal (real: McGill-NLP/llm2vec#84) and dispatch_model's
old-driver warning (its text from big_modeling.py)."""
from stethoscope.facts.parsers import accelerate_p2p
from stethoscope.facts.parsers.base import Artefact

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_llm2vec84_refusal_in_a_code_fence():
    res = _parse(accelerate_p2p, "accelerate_p2p/llm2vec84_rtx40_refused.txt")
    assert [(f.form, f.evidence.line) for f in res.facts] == [("refused", 2)]
    assert res.lines_used == 1


def test_old_driver_warning_and_launch_note():
    # CONSTRUCTED from big_modeling.py's and launch.py's texts
    text = ("We've detected an older driver with an RTX 4000 series GPU. These drivers have issues with P2P. This can affect "
            "the multi-gpu inference when using accelerate device_map.Please make sure to update your driver\n"
            "Using RTX 4000 series which doesn't support faster communication speedups. Ensuring P2P and IB communications are disabled.\n")
    assert accelerate_p2p.detect(text)
    assert [f.form for f in _parse(accelerate_p2p, text=text).facts] == ["old_driver"]


def test_launch_note_alone_is_not_read():
    text = "Using RTX 4000 series which doesn't support faster communication speedups. Ensuring P2P and IB communications are disabled.\n"
    assert not accelerate_p2p.detect(text)
    assert not accelerate_p2p.parse(Artefact(path="t.txt", text=text, node="n1")).facts

"""cpp_runtime_abort: libstdc++'s abort messages, from a real run's exit (fixtures/artefacts/cpp_runtime_abort/README.md)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import cpp_runtime_abort
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/cpp_runtime_abort"


def read(text: str, exception: bool = False):
    res = cpp_runtime_abort.parse(Artefact(path="app.log", text=text, node="n1"))
    if exception:
        return [(f.evidence.line, f.reason, f.exception) for f in res.facts], res.lines_used
    return [(f.evidence.line, f.reason, f.terminated) for f in res.facts], res.lines_used


def test_pure_virtual_call_and_its_terminate_are_one_abort():
    # NVIDIA/Megatron-LM#1874: after validation, PyTorch's warnings, the two lines of libstdc++, torchrun's exit -6
    text = (FIX / "megatron1874_pure_virtual_after_validation.txt").read_text()
    assert cpp_runtime_abort.detect(text)
    assert read(text) == ([(4, "pure_virtual_call", True)], 2)


def test_launcher_prefixes_and_the_other_forms():
    # torchrun's per-rank prefix before the message (NVIDIA/Megatron-LM#1874's form), and vterminate.cc's others
    assert read("[rank3]: pure virtual method called\n[rank3]: terminate called without an active exception\n") == (
        [(1, "pure_virtual_call", True)], 2)
    assert read("terminate called without an active exception\nAborted (core dumped)\n") == (
        [(1, "terminate_without_exception", False)], 1)
    assert read("terminate called recursively\n") == ([(1, "terminate_recursively", False)], 1)
    assert read("deleted virtual method called\n") == ([(1, "deleted_virtual_call", False)], 1)


def test_an_uncaught_exception_names_its_type():
    # InternLM/lmdeploy#3258's line (the watchdog's c10::DistBackendError), verbatim; its what() follows, read by the
    # readers of its own words (a CUDA error: cuda_app)
    text = ("frame #9: <unknown function> + 0x126850 (0x7f5e30ea2850 in /lib/x86_64-linux-gnu/libc.so.6)\n\n"
            "terminate called after throwing an instance of 'c10::DistBackendError'\n"
            "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 6] Proc\n")
    assert cpp_runtime_abort.detect(text)
    assert read(text, True) == ([(3, "uncaught_exception", "c10::DistBackendError")], 2)
    res = cpp_runtime_abort.parse(Artefact(path="app.log", text=text, node="n1"))
    assert [f.what_shown for f in res.facts] == [True]
    # the type alone (a rank's log cut after it): nothing says what it carried
    res = cpp_runtime_abort.parse(Artefact(path="app.log", node="n1",
                                           text="terminate called after throwing an instance of 'c10::DistBackendError'\n"))
    assert [(f.exception, f.what_shown) for f in res.facts] == [("c10::DistBackendError", False)]
    # gpu-burn's (wilicc/gpu-burn#92's fixture): its CUDA check throws std::runtime_error
    text = (FIX.parent / "cuda_app/gpuburn92_h100_system_not_ready.txt").read_text()
    assert ("uncaught_exception", "std::runtime_error") in {(r, e) for _n, r, e in read(text, True)[0]}


def test_not_an_abort_of_this_kind():
    assert not cpp_runtime_abort.detect("")
    # a sentence about the message is prose (the line does not end at the type)
    assert not cpp_runtime_abort.detect("I got terminate called after throwing an instance of 'std::bad_alloc' again\n")
    assert not cpp_runtime_abort.detect('It can run but always terminate, "terminate called without an active exception" and then I rerun\n')

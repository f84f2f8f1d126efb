"""triton_model_table: Triton Inference Server's model-status table, its status cells joined whole, on real tables."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import triton_model_table as r
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "triton_model_table"


def _parse(text: str):
    return r.parse(Artefact(path="t.txt", text=text)).facts


def test_server6950_cell_cut_mid_word_is_joined_and_its_cuda_error_read():
    # TablePrinter cut the reason at the column's share: 'operation no' / 't supported (...)'; frames follow
    text = (FIX / "server6950_trtllm_mempool_not_supported_cell_wrapped.txt").read_text()
    assert r.detect(text)
    facts = _parse(text)
    state = [f for f in facts if f.kind == "triton_model_state"]
    cuda = [f for f in facts if f.kind == "cuda_error"]
    assert [(f.model, f.version, f.state, f.evidence.line) for f in state] == [("tensorrt_llm", "1", "UNAVAILABLE", 4)]
    assert state[0].reason.endswith("cudaDeviceGetDefaultMemPool(&memPool, device): operation not supported "
                                    "(/app/tensorrt_llm/cpp/tensorrt_llm/runtime/bufferManager.cpp:170)")
    assert state[0].message.startswith("model 'tensorrt_llm' version 1: UNAVAILABLE: Internal: ")
    assert [(f.catalogue_name, f.form, f.source_line, f.evidence.line) for f in cuda] == [
        ("cudaErrorNotSupported", "runtime_error_in", 170, 4)]


def test_trtllm_backend712_reason_without_a_cuda_error_names_the_model():
    text = (FIX / "trtllm_backend712_stub_not_healthy.txt").read_text()
    facts = _parse(text)
    assert [(f.kind, f.model, f.version, f.reason, f.evidence.line) for f in facts] == [
        ("triton_model_state", "multimodal_encoders", "1", "Internal: Stub process 'multimodal_encoders_0_0' is not healthy.", 5)]
    assert facts[0].message == "model 'multimodal_encoders' version 1: UNAVAILABLE: Internal: Stub process 'multimodal_encoders_0_0' is not healthy."


def test_ready_rows_are_read_and_make_no_fact():
    # must not: the loaded models of trtllm_backend712's table (its rows, the UNAVAILABLE one left out)
    lines = (FIX / "trtllm_backend712_stub_not_healthy.txt").read_text().splitlines()
    text = "\n".join(lines[:4] + lines[5:7]) + "\n"
    assert r.detect(text)
    res = r.parse(Artefact(path="t.txt", text=text))
    assert res.facts == [] and res.lines_used == 2


def test_a_padded_row_ends_its_line_of_the_reason():
    # must not glue: a status cell padded to the share ended a line of the reason (a '\n' in it); the next row is
    # the next line (CONSTRUCTED from server#6950's rows: the first row's reason ends before the column's end)
    rule = "+----------------+---------+" + "-" * 40 + "+"
    text = (rule + "\n"
            "| tensorrt_llm   | 1       | UNAVAILABLE: Internal: out of memory     |\n"
            "|                |         | 1       0x7f981281e045 /opt/tritonserver |\n")
    (fact,) = _parse(text)
    assert fact.reason == "Internal: out of memory"


def test_rows_of_other_tables_are_not_read():
    # must not: a version that is no number, a markdown table of states, a READY word inside prose
    for line in ("| node1 | v1 | READY |", "| gpu0 | Ready | 45 C |", "the model is READY | see above"):
        assert not r.detect(line + "\n")
        assert _parse(line + "\n") == []

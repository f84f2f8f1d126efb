"""libfabric's EFA provider abort (ofiwg/libfabric#5716; efa_base_ep_write_eq_error's 1.16+ form filled in)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import libfabric_efa
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/libfabric_efa"


def _facts(text: str):
    return libfabric_efa.parse(Artefact(path="err.log", text=text, node="n1")).facts


def test_before_1_16_unable_to_write_to_eq():
    text = (FIX / "libfabric5716_unable_to_write_eq.log").read_text()
    assert libfabric_efa.detect(text)
    (f,) = _facts(text)
    assert (f.error, f.error_text, f.prov_errno, f.prov_text) == (5, "Input/output error", -11, "Unknown error -11")


def test_internal_error_block():
    for verb in ("encountered", "encounterd"):  # 1.16-1.18 printed the typo
        text = (f"Libfabric EFA provider has {verb} an internal error:\n\nLibfabric error: (5) Input/output error\n"
                "EFA internal error: (15) Unreachable remote - never received a response\n\nYour application will now abort().\n")
        assert libfabric_efa.detect(text)
        (f,) = _facts(text)
        assert (f.evidence.line, f.error, f.prov_errno, f.prov_text) == (1, 5, 15, "Unreachable remote - never received a response")


def test_near_misses():
    for text in ("libfabric:123:1600000000::efa:cq:efa_rdm_cq_proc():1 <warn> Writing error to EQ: err: x\n",
                 "Unable to write to EQ\n"):
        assert not libfabric_efa.detect(text) and _facts(text) == []

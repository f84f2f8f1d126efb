"""cuda_app: the real illegal-address capture, PyTorch error and out-of-memory formats."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import cuda_app
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/cuda_app"
OBS = Path(__file__).resolve().parents[2] / "fixtures" / "observations" / "h200-x2"


def parse_file(name: str, node: str = "node1"):
    path = FIX / name
    return cuda_app.parse(Artefact(path=f"cuda_app/{name}", text=path.read_text(), node=node))


def parse_text(text: str):
    return cuda_app.parse(Artefact(path="t.log", text=text, node="node1"))


def test_real_illegal_address_capture():
    r = parse_file("app-illegal-address.txt", node="vm")
    assert r.errors == []
    got = [(f.evidence.line, f.error_name, f.runtime_name, f.message, f.node) for f in r.facts]
    # line 10 repeats line 5 ("Exception ignored in ...") and is the same error
    assert got == [
        (1, "cudaErrorIllegalAddress", "cudaErrorIllegalAddress", "an illegal memory access was encountered", "vm"),
        (5, "CUDA_ERROR_ILLEGAL_ADDRESS", "cudaErrorIllegalAddress", "an illegal memory access was encountered", "vm"),
    ]
    assert r.lines_used == 3


def test_detect_on_every_real_capture():
    for path in sorted(OBS.rglob("*")):
        if path.is_file() and path.suffix != ".md":  # the README quotes the captures
            head = path.read_text(errors="replace")[:65536]
            assert cuda_app.detect(head) is (path.name == "app-illegal-address.txt"), path


ROWS = [
    ("RuntimeError: CUDA error: an illegal memory access was encountered", "cudaErrorIllegalAddress", None, None),
    ("[rank3]:RuntimeError: CUDA error: device-side assert triggered", "cudaErrorAssert", 3, None),
    ("  what():  CUDA error: unspecified launch failure", "cudaErrorLaunchFailure", None, None),
    ("cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorECCUncorrectable: uncorrectable ECC error encountered",
     "cudaErrorECCUncorrectable", None, None),
]


@pytest.mark.parametrize("line,name,rank,device", ROWS)
def test_error_lines(line, name, rank, device):
    r = parse_text(line)
    (f,) = r.facts
    assert (f.error_name, f.runtime_name, f.rank, f.device) == (name, name, rank, device)


@pytest.mark.parametrize("line", [
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "vm:1708:1708 [0] NCCL INFO cudaDriverVersion 13000",
    "[Sun Nov 29 18:32:13 2026] NVRM: Xid (PCI:0000:00:06): 31, pid=1883, name=python3, channel 0x0000000a",
    "",
])
def test_negative_lines(line):
    assert parse_text(line).facts == []


def test_pytorch_errors_and_oom_versions():
    r = parse_file("torch_cuda_errors.log")
    ooms = [(f.evidence.line, f.device, f.tried_bytes, f.total_bytes, f.free_bytes) for f in r.facts if f.kind == "cuda_oom"]
    assert ooms == [
        (6, 0, 22 * 2**20, round(23.65 * 2**30), round(11.06 * 2**20)),
        (7, 0, round(1.70 * 2**30), 6 * 2**30, 0),
        (8, 1, round(12.50 * 2**20), round(10.92 * 2**30), round(9.28 * 2**30)),
    ]
    errs = [(f.evidence.line, f.error_name, f.device) for f in r.facts if f.kind == "cuda_error"]
    assert errs == [(2, "cudaErrorIllegalAddress", None), (6, "cuda_out_of_memory", 0),
                    (7, "cuda_out_of_memory", 0), (8, "cuda_out_of_memory", 1), (9, "cudaErrorAssert", None)]
    assert [(e.path, e.line) for e in r.errors] == [("cuda_app/torch_cuda_errors.log", 10)]
    assert r.lines_used == 9  # boilerplate lines count as read


def test_mixed_terminal_session():
    path = ROOT / "fixtures/artefacts/torch_log/mixed_session.txt"
    r = cuda_app.parse(Artefact(path="m.txt", text=path.read_text(), node="node1"))
    assert [(f.evidence.line, f.error_name) for f in r.facts] == [(8, "cudaErrorIllegalAddress")]
    assert r.lines_used == 4


def test_empty_input():
    r = parse_text("")
    assert (r.facts, r.errors, r.lines_used) == ([], [], 0)

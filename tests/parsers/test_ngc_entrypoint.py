"""ngc_entrypoint: an NVIDIA container image's driver check at start (nvidia_entrypoint.sh), on real lines."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import ngc_entrypoint
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "ngc_entrypoint"


def parse_text(text: str, path: str = "run.txt"):
    art = Artefact(path=path, text=text, node="node1")
    art.normalise()
    return ngc_entrypoint.parse(art)


def test_triton5858_driver_not_detected():
    # triton-inference-server/server#5858: Triton 22.04 started without GPU access
    text = (FIX / "triton5858_driver_not_detected.txt").read_text()
    assert ngc_entrypoint.detect(text)
    res = parse_text(text)
    assert [(f.evidence.line, f.reason, f.engine, f.gpu) for f in res.facts] == [(11, "driver_not_detected", "ngc_entrypoint", True)]
    # the banner's ten lines, the warning and its two advice lines; Torch-TensorRT's and Triton's own lines are not ours
    assert res.lines_used == 13


def test_entrypoint_script_forms():
    # triton-inference-server/server nvidia_entrypoint.sh's echo lines (two blanks, the older advice)
    text = ("\nWARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
            "   Use Docker with NVIDIA Container Toolkit to start this container; see\n"
            "   https://github.com/NVIDIA/nvidia-docker.\n\n")
    res = parse_text(text)
    assert [(f.evidence.line, f.reason) for f in res.facts] == [(2, "driver_not_detected")]
    assert res.lines_used == 3


def test_driver_older_than_image():
    # nvidia_entrypoint.sh: 'ERROR: This container was built for NVIDIA Driver Release ${CUDA_DRIVER_VERSION%.*} or later, but'
    # / '       version ${DRIVER_VERSION} was detected and compatibility mode is UNAVAILABLE.' / echo / '       [[${_CUDA_COMPAT_STATUS}]]'
    # (the format filled in)
    text = ("\nERROR: This container was built for NVIDIA Driver Release 525.60 or later, but\n"
            "       version 470.82.01 was detected and compatibility mode is UNAVAILABLE.\n\n"
            "       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]\n")
    assert ngc_entrypoint.detect(text)
    (f,) = parse_text(text).facts
    assert (f.evidence.line, f.reason, f.driver_version) == (2, "driver_older_than_image", "470.82.01")
    assert f.message == "built for driver release 525.60 or later; CUDA Driver UNAVAILABLE (cuInit(0) returned 804)"


def test_compat_note_is_no_fault():
    # nvidia_entrypoint.sh: an older driver the image's forward-compatibility libraries cover
    res = parse_text("\nNOTE: Legacy NVIDIA Driver detected.  Compatibility mode ENABLED.\n")
    assert res.facts == [] and res.lines_used == 1


@pytest.mark.parametrize("text", [
    # the banner alone (triton-inference-server/server#5858's first lines): nothing of the driver, not this kind
    "=============================\n== Triton Inference Server ==\n=============================\nNVIDIA Release 22.04 (build 36821869)\n",
    # a README quoting the warning's first words (a public repository's README, code index file 54805242279)
    "If the host `nvidia-smi` works but containers print `WARNING: The NVIDIA Driver was not detected`, reconfigure Docker's NVIDIA runtime:\n",
    "",
])
def test_not_ours(text):
    assert not ngc_entrypoint.detect(text)
    assert parse_text(text).facts == []

"""GPUDirect-TCPXO's RxDM log (container-engine-accelerators#580; the daemon's format strings, filled in)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import gcp_rxdm_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/gcp_rxdm_log"


def _facts(text: str):
    art = Artefact(path="rxdm.log", node="n1", text=text)
    art.normalise()
    return gcp_rxdm_log.parse(art)


def test_the_cut_line_of_the_thread():
    r = _facts((FIX / "cea580_gpu_count_cut.log").read_text())
    (f,) = r.facts
    assert (f.source_file, f.message, f.fatal, f.gpus_pci) == ("fastrak_gpumem_manager.cc", "Number of GPUs detected in the", False, None)


def test_full_prefix_and_the_gpu_count():
    text = ("I0312 10:11:12.123456       1 fastrak_gpumem_manager.cc:255] Initializing CUDA\n"
            "E0312 10:11:12.223456       1 fastrak_gpumem_manager.cc:269] Number of GPUs detected in the PCI tree 7 is not "
            "equal to the actual number of GPUs reported by CUDA 8.\n")
    r = _facts(text)
    (f,) = r.facts
    assert (f.evidence.line, f.gpus_pci, f.gpus_cuda) == (2, 7, 8) and r.lines_used == 2


def test_other_programs_glog_lines_are_not_rxdm():
    assert not gcp_rxdm_log.detect("E0312 10:11:12.123456  1 main.cc:10] something else\n")
    assert not gcp_rxdm_log.detect("W1206 18:44:12.715298 140 xla/service/gpu/gpu_compiler.cc:77] slow\n")


def test_the_gpu_count_quoted_in_prose_without_the_prefix():
    # NVIDIA/aicr#1662: the pull request quotes the daemon's sentence in inline code, no glog prefix
    text = (FIX / "aicr1662_quoted_in_prose.txt").read_text()
    assert gcp_rxdm_log.detect(text)
    r = _facts(text)
    (f,) = r.facts
    assert (f.source_file, f.gpus_pci, f.gpus_cuda, f.evidence.line) == ("fastrak_gpumem_manager.cc", 7, 8, 1)
    assert f.message == ("Number of GPUs detected in the PCI tree 7 is not equal to the actual number of GPUs "
                         "reported by CUDA 8")


def test_a_logged_gpu_count_line_is_one_fact_not_two():
    text = ("E0312 10:11:12.223456       1 fastrak_gpumem_manager.cc:269] Number of GPUs detected in the PCI tree 7 is not "
            "equal to the actual number of GPUs reported by CUDA 8.\n")
    assert len(_facts(text).facts) == 1


def test_prose_about_gpus_without_the_daemons_sentence_is_not_rxdm():
    assert not gcp_rxdm_log.detect("The number of GPUs detected by CUDA is 8, the PCI tree shows 7 of them.\n")

"""ras_mc_ctl: rasdaemon's ras-mc-ctl --summary and --errors, on real pastes and on the forms of util/ras-mc-ctl.in."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import ras_mc_ctl as rmc
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ras_mc_ctl"


def parse_text(text: str):
    return rmc.parse(Artefact(path="ras.txt", text=text, node="n1"))


def _view(f):
    d = f.model_dump()
    return {k: d[k] for k in ("kind", "source", "corrected", "count", "severity", "error_type", "errors", "device",
                              "pci_bus_id", "multiple", "memory_controller", "location") if d.get(k) is not None}


def test_summary_with_injected_aer_errors():
    """mchehab/rasdaemon#228: the AER summary of injected errors; the reporter's markdown-bold fatal row is not a row."""
    text = (FIX / "rasdaemon228_summary_aer_injected.txt").read_text()
    assert rmc.detect(text)
    r = parse_text(text)
    rows = [(f.evidence.line, f.severity, f.error_type, f.errors, f.multiple) for f in r.facts]
    assert rows[0] == (5, "corrected", "Data Link Layer", "Bad DLLP", True)
    assert rows[3] == (8, "corrected", "Physical Layer", "Receiver Error", True)
    assert rows[5] == (11, "nonfatal", "Transaction Layer", "Completer Abort", False)  # the TLP header left off
    assert len(rows) == 9 and all(f.device == "unnamed device" for f in r.facts)
    # a summary row names no PCI address: no pci_bus_id (a finding names the node, not "GPU unnamed device")
    assert all(f.pci_bus_id is None for f in r.facts)
    assert 10 not in [f.evidence.line for f in r.facts]  # "**6 Uncorrected (Fatal) errors:** "


def test_errors_mce_rows_pasted_without_their_header():
    """andikleen/mcelog#116: two Intel memory-controller MCE rows, wrapped, the lines before them cut ('...')."""
    text = (FIX / "mcelog116_errors_mce_memory_controller.txt").read_text()
    assert rmc.detect(text)
    r = parse_text(text)
    assert [(f.evidence.line, f.source, f.corrected) for f in r.facts] == [(3, "mce", True), (11, "mce", True)]
    assert r.facts[0].timestamp == "2023-05-31 10:06:19 -0400"


def test_errors_forms_of_each_section():
    # CONSTRUCTED from util/ras-mc-ctl.in's errors(): "$id $time $count $type error(s): $msg at $label location: ...",
    # "$id $time $devname $type error: $msg", "$id $time error: $msg, CPU ..., bank ..., mcg ..., mci ..."; a summary's
    # memory controller rows ("\t$err_type on DIMM Label(s): '$label' location: ... errors: $count") and another section
    text = ("Memory controller events:\n"
            "1 2024-01-02 03:04:05 +0000 1 Uncorrected error(s): memory read error at CPU_SrcID#0_MC#0_Chan#0_DIMM#0 location: 0:0:0:-1, addr 4096, grain 5, syndrome 0 \n"
            "2 2024-01-02 03:04:06 +0000 1 Info error(s): scrub at CPU_SrcID#0_MC#0_Chan#0_DIMM#0 location: 0:0:0:-1, addr 0, grain 0, syndrome 0 \n"
            "\n"
            "PCIe AER events:\n"
            "1 2024-01-02 03:05:00 +0000 0000:3b:00.0 Uncorrected (Fatal) error: Surprise Link Down\n"
            "\n"
            "ARM processor events:\n"
            "1 2024-01-02 03:06:00 +0000 error: affinity level: 1, mpidr: 0x81000000\n"
            "\n"
            "MCE events:\n"
            "1 2024-01-02 03:07:00 +0000 error: Uncorrected error, CPU 3, bank Unified Memory Controller (bank=17), mcg mcgstatus=0\n"
            "Memory controller events summary:\n"
            "\tCorrected on DIMM Label(s): 'DIMM_A1' location: 1:0:0:-1 errors: 12\n")
    r = parse_text(text)
    assert [_view(f) for f in r.facts] == [
        {"kind": "host_hardware_error", "source": "edac", "corrected": False, "count": 1, "memory_controller": "MC0",
         "location": "CPU_SrcID#0_MC#0_Chan#0_DIMM#0"},
        {"kind": "pcie_aer_error", "severity": "fatal", "error_type": "Data Link Layer", "errors": "Surprise Link Down",
         "device": "0000:3b:00.0", "pci_bus_id": "0000:3b:00.0", "multiple": False},
        {"kind": "host_hardware_error", "source": "mce", "corrected": False},
        {"kind": "host_hardware_error", "source": "edac", "corrected": True, "count": 12, "memory_controller": "MC1",
         "location": "DIMM_A1"},
    ]


def test_quiet_database_prose_and_other_outputs_make_no_fact():
    # CONSTRUCTED: a quiet database (summary()'s "No ... errors." prints of util/ras-mc-ctl.in), the command in prose,
    # a kernel's EDAC line, and rows outside any section
    quiet = "No Memory errors.\n\nNo PCIe AER errors.\n\nNo ARM processor errors.\n\nNo Extlog errors.\n\nNo devlink errors.\nNo disk errors.\n"
    assert rmc.detect(quiet) and parse_text(quiet).facts == [] and parse_text(quiet).lines_used == 6
    for text in ("read the records with ras-mc-ctl --errors and replace the DIMM\n",
                 "[  5.1] EDAC MC1: 262 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0)\n",
                 "\t2 Corrected errors: Bad DLLP\n",
                 "1 2024-01-02 03:07:00 +0000 error: something, with no machine-check fields\n"):
        assert not rmc.detect(text), text
        assert parse_text(text).facts == [], text

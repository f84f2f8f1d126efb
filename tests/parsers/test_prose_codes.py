"""prose_codes (ticket_prose's reported_fault_code): an Xid or SXid a sentence tells was seen, and the sentences
that name one without reporting it (denied, asked, explained, supposed), from verbatim public sentences."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from stethoscope.facts.parsers import ticket_prose
from stethoscope.facts.parsers.base import Artefact
from stethoscope.facts.parsers.prose_codes import reported_codes

ROOT = Path(__file__).resolve().parents[2]

# issue 11's ticket, the lead's round B1 brief (the form every reported code takes)
TICKET = "We have a node that keeps dropping a GPU. dmesg shows Xid 79 on GPU 0000:3b:00.0 right before the job dies."

REPORTED = [
    (TICKET, [("xid", 79, "0000:3b:00.0")]),
    # NVIDIA/NVSentinel#1888 (a comment, 2026-09-21): events counted on a fleet; the sentence before it, after "fail.**",
    # denies something else
    ("So the `XID_154` bucket value is dead weight for XID 154, not a gap. **No, I am not seeing it fail.** Our fleet "
     "has **1,175 XID 154 events in 30 days and zero of them produced `CONTACT_SUPPORT`**, which is exactly what that "
     "override predicts.", [("xid", 154, None)]),
]

NOT_REPORTED = [
    # awslabs/awsome-distributed-ai#1190 (its description): what the code is
    "Xid 64 (`INFOROM_DRAM_RETIREMENT_FAILURE`) reports a row-remapping **failure**: the GPU attempted to remap a "
    "degraded DRAM row and could not (bank already has 8 uncorrectable-error rows remapped, a remap hit an "
    "already-remapped row, or 512 total remaps are exhausted; on Blackwell this fires only after HBM channel repair is "
    "also exhausted).",
    # Azure/azurehpc#714 (its description): a change to a health check
    "To allow a better identification of this error the Xid codes 119 and 120 are added to the `azure_gpu_xid` test.",
    # Azure/azurehpc#648 (a comment): Xid in passing, no code
    "I switched to using dmesg to check for Xid error codes and only Xid errors associated with H/W issues.",
    # aws/eks-node-monitoring-agent#94 (its description): a change's subject
    "Addresses XID 79 (GPU has fallen off the bus) scenarios by changing NvidiaDeviceCountMismatch severity from "
    "Warning to Fatal.",
    # leptonai/gpud#100 (its description): what NVIDIA's documentation says of a code
    "For \"Xid 44\", NVIDIA only mentions that it's a driver error but https://docs.nvidia.com/deploy/xid-errors/index.html "
    "does not mention anything about GPU reset or system reboot",
    # leptonai/gpud#614 (a reviewed line of its diff): a catalogue's wording
    "Xid 143, marked as critical in GPUd, indicates GPU initialization failure. GPU hardware should be inspected and repaired.",
    # forums.developer.nvidia.com/t/deciphering-an-nvrm-xid-message/2574 (the moderator's answer): a definition
    "Xid:8 generally means that there was some kind of timeout problem, which is unfortunately what you already know.",
    # ld-singh/ai-factory-ops-lab#22 (its description): a lesson's plan
    "Detect a GPU/node fault (XID error, DCGM health check, node NotReady) and recover: cordon, drain, reschedule the workloads.",
    # docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html (its first line)
    "On Volta and older GPUs, see Xid and SXid Errors with the Xid Catalog for older GPUs.",
]


# the lead's round B1 brief (issue 11): forms a ticket takes, as the brief wrote them
BRIEF_REPORTED = [("we keep getting Xid 48 / Xid 63 on node gpu-12", [("xid", 48, "gpu-12"), ("xid", 63, "gpu-12")]),
                  ("SXid 20034 on the NVSwitch", [("sxid", 20034, None)])]
BRIEF_NOT_REPORTED = ["no Xid errors in dmesg", "without any Xid", "is it Xid 79?", "Xid 79 means ...",
                      "we monitor Xid errors with DCGM", "no Xid in dmesg"]


@pytest.mark.parametrize("line,want", BRIEF_REPORTED)
def test_the_briefs_forms(line, want):
    assert [(c.code_kind, c.code, c.named_node) for c in reported_codes(line)] == want


@pytest.mark.parametrize("line", BRIEF_NOT_REPORTED)
def test_the_briefs_controls(line):
    assert reported_codes(line) == []


@pytest.mark.parametrize("line,want", REPORTED)
def test_a_code_told_as_seen_is_reported(line, want):
    assert [(c.code_kind, c.code, c.pci_bus_id) for c in reported_codes(line)] == want


@pytest.mark.parametrize("line", NOT_REPORTED)
def test_a_code_named_without_a_report_is_not(line):
    assert reported_codes(line) == []


def test_the_ticket_becomes_a_reported_fault_code_with_its_gpu():
    res = ticket_prose.parse(Artefact(path="ticket.txt", text=TICKET + "\n", node="p1"))
    codes = [f for f in res.facts if f.kind == "reported_fault_code"]
    assert [(f.code_kind, f.code, f.pci_bus_id, f.named, f.evidence.line) for f in codes] == [
        ("xid", 79, "0000:3b:00.0", "GPU 0000:3b:00.0", 1)]


def test_a_file_that_only_names_xid_in_passing_is_read_as_before():
    # Azure/azurehpc#648: no code, no report; the reporter's sentence with an error word, a claim nothing judges
    text = NOT_REPORTED[2] + "\n"
    res = ticket_prose.parse(Artefact(path="note.txt", text=text, node="n1"))
    assert [(f.kind, f.symptom) for f in res.facts] == [("reported_symptom", "error")]


def test_the_reading_stays_linear_on_a_long_hostile_line():
    line = ("dmesg shows Xid 79 on GPU 0000:3b:00.0, no Xid 48 / Xid 63 on node gpu-12 " * 1500)[:120_000]
    t = time.perf_counter()
    reported_codes(line)
    reported_codes(line.replace(" ", "") + "?")
    # a guard against a backtracking reading (minutes), not a speed figure: ~0.25 s on the 2-core VM at load 7
    assert time.perf_counter() - t < 20.0


def test_the_reported_xid_keeps_the_verdict_from_healthy(ruleset, tmp_path):
    """The ticket beside a healthy nvidia-smi -q: inconclusive, the reported Xid 79 first (info, below an observed
    line's confidence); the kernel's own Xid 79 line beside it: faulty, and the reported one adds nothing."""
    from stethoscope.engine.pipeline import diagnose_bundle

    smi = ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q-ECC.txt"
    (tmp_path / "a" / "node1").mkdir(parents=True)
    (tmp_path / "a" / "node1" / "ticket.txt").write_text(TICKET + "\n")
    (tmp_path / "a" / "node1" / "nvidia-smi-q.txt").write_text(smi.read_text())
    rep = diagnose_bundle(tmp_path / "a", ruleset, jobs=1)
    assert rep.verdict == "inconclusive", rep.reason
    assert (rep.findings[0].rule, rep.findings[0].cause, rep.findings[0].entity.gpu) == (
        "xid_reported_in_prose", "gpu_fell_off_bus", "0000:3b:00.0")
    kern = ROOT / "fixtures" / "artefacts" / "kernel_log" / "dmesg_xid79_sxid.log"
    (tmp_path / "a" / "node1" / "dmesg.log").write_text(kern.read_text())
    rep = diagnose_bundle(tmp_path / "a", ruleset, jobs=1)
    assert rep.verdict == "faulty"
    assert not [f for f in rep.findings if f.rule in ("xid_reported_in_prose", "sxid_reported_in_prose")]

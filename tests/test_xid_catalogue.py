"""The Xid catalogue: generated file up to date, consistent with the vocabulary and rules, and
one realistic kernel line per code diagnosed into the catalogue's action and severity."""
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from stethoscope.engine.pipeline import evaluate, evaluate_all, parse_artefacts
from stethoscope.engine.knowledge import load_vocabulary
from stethoscope.engine.catalogues.nvlink_xid import load_workflow
from stethoscope.engine.catalogues.xid import load_catalogue
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parent.parent
CAT = load_catalogue()
JUDGE = yaml.safe_load((ROOT / "knowledge" / "xid_judgements.yaml").read_text())
STAMP = "[Mon Apr  6 07:25:23 2026] NVRM: Xid (PCI:0000:{bus:02x}:00): {code}, "

# Message bodies as the driver prints them (public reports; see fixtures/artefacts/kernel_log/README.md
# and the NVIDIA Xid and memory-error documents); other codes get the common channel-error form.
BODIES = {
    13: "pid=1797828, name=pt_main_thread, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter",
    31: "pid=1883, name=python3, channel 0x0000000a, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x8344_f3e00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE",
    45: "pid=1818990, name=python3, Ch 00000001",
    48: "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
    63: "pid='<unknown>', name=<unknown>, Row Remapper: New row (0x00000000004e6e30) is marked for remapping, reset gpu to activate.",
    64: "pid='<unknown>', name=<unknown>, Row Remapper: Failed to remap row (0x00000000004e6e30).",
    74: "pid=7312, name=python, NVLink: fatal error detected on link 3(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
    79: "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    92: "High single-bit ECC error rate detected on GPU",
    94: "pid=1234, name=python3, Contained: CE User Channel (0x9). RST: No, D-RST: No",
    95: "pid='<unknown>', name=<unknown>, Uncontained: FBHUB. RST: Yes, D-RST: No",
    119: "pid=5220, name=cache_mgr_main, Timeout after 45s of waiting for RPC response from GPU6 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 3",
    154: "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
}


def _nvlink5_row(code: int):
    return next(r for r in CAT.nvlink5_decode if r.xid == code)


def _line(code: int) -> str:
    if code in BODIES:
        body = BODIES[code]
    elif 144 <= code <= 150:
        row = _nvlink5_row(code)
        sev = "Fatal" if row.nvidia_severity.startswith(("Fatal", "Link Fatal")) else "Nonfatal"
        body = f"{row.unit} {sev} XC0 i0 Link 04 (0x00000000 {row.error_status} 0x00000000 0x00000000)"
    else:
        body = "pid=5220, name=python3, Ch 00000010"
    return STAMP.format(bus=code, code=code) + body


def _findings(code: int, evaluator="reference"):
    arts = [Artefact(path="n1/dmesg.log", text=_line(code) + "\n", node="n1", node_from_folder=True)]
    obs = parse_artefacts(arts)
    assert not obs.coverage.errors, obs.coverage.errors
    return evaluate(_RULES[0], obs.facts, evaluator)


_RULES: list = []


@pytest.fixture(scope="module", autouse=True)
def _ruleset(ruleset):
    _RULES[:] = [ruleset]


def test_catalogue_covers_every_code_and_names_its_source():
    assert [e.xid for e in CAT.xids] == list(range(1, 177))
    assert "docs.nvidia.com/deploy/xid-errors" in CAT.source
    assert sum(e.unused for e in CAT.xids) > 50  # NVIDIA marks many codes unused
    assert {e.mnemonic for e in CAT.xids if e.xid in (48, 79, 154)} == {
        "ROBUST_CHANNEL_GPU_ECC_DBE", "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS", "GPU_RECOVERY_ACTION_CHANGED"}
    assert len(CAT.sxids) > 80 and CAT.sxid(20034) is not None


def test_codes_after_the_catalogue_take_the_drivers_name_and_our_judgement(ruleset):
    """173-176: nverror.h of drivers 580.94.10-595 names them, NVIDIA's catalogue (October 2025) does not;
    a code after those is still 'unlisted' (UNKNOWN, warning, CONTACT_SUPPORT)."""
    assert {c: CAT.xid(c).mnemonic for c in range(173, 177)} == {
        173: "C2C_FATAL_LINK_FAILURE", 174: "ROBUST_CHANNEL_RESETCHANNEL_KILL_PROCESS_SILENT",
        175: "MEMORY_SUBSYSTEM_ERROR", 176: "PCIE_CORRECTABLE_ERROR_FAULT"}
    for c in range(173, 177):
        e = CAT.xid(c)
        assert "nverror.h" in e.description and "nverror.h" in e.judgement and not e.immediate, c
    (f,) = _findings(175)
    assert (f.cause, f.severity, f.actions) == ("gpu_hardware_fault", "critical", ["RESET_GPU", "CONTACT_SUPPORT"])
    assert "MEMORY_SUBSYSTEM_ERROR" in f.summary and f.entity.gpu == "0000:af:00.0"
    assert CAT.xid(177) is None
    (f,) = _findings(177)
    assert (f.rule, f.cause, f.severity) == ("xid_catalogue", "xid_unused_code", "warning") and "UNKNOWN" in f.summary


def test_generated_file_is_up_to_date():
    res = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_xid_catalogue.py"), "--check"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_catalogue_speaks_the_vocabulary_and_names_existing_rules(ruleset):
    vocab = load_vocabulary()
    ids = {r.id for r in ruleset.rules}
    for e in CAT.xids:
        assert e.cause in vocab.causes and e.component in vocab.components, e.xid
        assert e.actions and set(e.actions) <= set(vocab.actions), e.xid
        assert set(e.specific_rules) <= ids, (e.xid, set(e.specific_rules) - ids)
    for row in CAT.nvlink5_decode:
        assert set(row.actions) <= set(vocab.actions)
    for e in CAT.sxids:
        assert e.cause in vocab.causes and set(e.actions) <= set(vocab.actions)
    for rec in CAT.recovery_actions.values():
        assert rec.cause in vocab.causes and set(rec.actions) <= set(vocab.actions)


def test_every_judgement_override_names_why_and_a_source():
    for code, ov in JUDGE["overrides"].items():
        assert ov.get("why") and ov.get("source"), code
        assert CAT.xid(code).judgement


@pytest.mark.parametrize("code", range(1, 177))
def test_one_line_per_code_gets_the_catalogue_action_and_severity(code):
    entry = CAT.xid(code)
    found = _findings(code)
    assert len(found) == 1, [(f.rule, f.summary) for f in found]
    f = found[0]
    assert f.entity.gpu == f"0000:{code:02x}:00.0"
    if 144 <= code <= 150:
        row = _nvlink5_row(code)
        assert (f.rule, f.severity, f.actions) == ("nvlink5_xid_decoded", row.severity, row.actions)
    elif code == 74:
        # WORKFLOW_NVLINK_ERR: the register bits decide (third register bit 16, seen once)
        k = load_workflow().classes["diags_if_repeated"]
        assert (f.rule, f.severity, f.actions) == ("xid74_nvlink_error", k.severity, k.actions)
        assert f.entity.link == ["0000:4a:00.0 NVLink 3"]
    elif entry.specific_rules:
        # a dedicated rule: same severity, and NVIDIA's immediate action among its actions
        assert f.rule in entry.specific_rules
        assert f.severity == entry.severity
        assert set(JUDGE["bucket_actions"][entry.immediate]) <= set(f.actions)
    else:
        assert f.rule == "xid_catalogue"
        assert (f.cause, f.severity, f.actions) == (entry.cause, entry.severity, entry.actions)


def test_durable_agrees_with_the_reference_on_every_code(ruleset):
    """One log with one line per code on its own GPU, through both evaluators."""
    text = "".join(_line(c) + "\n" for c in range(1, 177))
    obs = parse_artefacts([Artefact(path="n1/dmesg.log", text=text, node="n1", node_from_folder=True)])
    got = {}
    for ev in ("durable", "reference"):
        findings, _ = evaluate_all(ruleset, obs.facts, ev)
        got[ev] = sorted((f.rule, f.entity.label, f.severity, f.role, tuple(f.actions)) for f in findings)
    assert got["durable"] == got["reference"]
    assert len(got["durable"]) >= 176

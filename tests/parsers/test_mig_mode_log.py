"""MIG mode changes from public threads (NVIDIA/gpu-operator#118, #668; the MIG user guide)."""
from __future__ import annotations

from pathlib import Path

from parse_helper import parse_fixture

from stethoscope.facts.parsers import mig_mode_log as reader

CASE_668 = Path(__file__).resolve().parents[2] / "fixtures/harvest/cases/" \
    "1805-gpu-operator-mig-disable-mode-change-pending-not-applied/mig-manager.log"


def _rows(res):
    return [(f.gpu, f.target_mode, f.state, f.reason) for f in res.facts]


def test_mig_parted_pending_at_end_of_log() -> None:
    res = parse_fixture(reader, text=CASE_668.read_text())
    assert _rows(res) == [("GPU0", "disabled", "pending", None)]
    assert res.facts[0].evidence.line == 7  # the 'Mode change pending: true' line
    assert res.lines_used == 8  # every line of mig-parted's mode-change walk


def test_smi_pending_in_use() -> None:
    res = parse_fixture(reader, "mig_mode/gpuop118_smi_pending_disable_in_use_session.txt")
    assert _rows(res) == [("0000:c1:00.0", "disabled", "pending", "In use by another client")]


def test_smi_pending_reset_not_supported() -> None:
    res = parse_fixture(reader, "mig_mode/mig_user_guide_pending_enable_not_supported.txt")
    assert _rows(res) == [("0000:00:03.0", "enabled", "pending", "Not Supported")]
    assert res.lines_used == 2


def test_later_walk_or_false_means_applied() -> None:
    walk = ('time="t" level=debug msg="  GPU 1: 0x20B010DE"\n'
            'time="t" level=debug msg="    Updating MIG mode: Enabled"\n'
            'time="t" level=debug msg="    Mode change pending: true"\n'
            'time="t" level=debug msg="  GPU 1: 0x20B010DE"\n'
            'time="t" level=debug msg="    Asserting MIG mode: Enabled"\n'
            'time="t" level=debug msg="    Current MIG mode: Enabled"\n'
            'time="t" level=debug msg="  GPU 2: 0x20B010DE"\n'
            'time="t" level=debug msg="    Updating MIG mode: Enabled"\n'
            'time="t" level=debug msg="    Mode change pending: false"\n')
    assert [(f.gpu, f.state) for f in parse_fixture(reader, text=walk).facts] == [("GPU1", "applied"), ("GPU2", "applied")]
    smi = ("Disabled MIG Mode for GPU 00000000:F9:00.0\n"
           "Warning: MIG mode is in pending disable state for GPU 00000000:07:00.0:Timeout\n")
    assert _rows(parse_fixture(reader, text=smi)) == [("0000:f9:00.0", "disabled", "applied", None),
                                                      ("0000:07:00.0", "disabled", "pending", "Timeout")]


def test_mig_manager_failure_lines() -> None:
    text = ('time="t" level=error msg="MIG mode change did not take effect after rebooting"\n'
            'FATA[0008] Error applying MIG configuration with hooks: error resetting all GPUs: exit status 255\n')
    assert [f.state for f in parse_fixture(reader, text=text).facts] == ["failed", "failed"]


def test_other_mig_output_is_not_this() -> None:
    assert not reader.detect("| MIG devices:                                                               |\n")
    assert not reader.detect("Enabled MIG Mode for GPU 00000000:07:00.0\n")  # success alone: nothing to judge


def test_mig_manager_log_without_an_outcome() -> None:
    # gpu-operator#646 and #322, cut before the mode change: the mig-manager's and mig-parted's own lines make the
    # file this reader's, and no fact (nothing pending, applied or failed is said)
    for rel, used in (("mig_mode/gpuop646_mig_manager_cut_before_apply.txt", 3),
                      ("mig_mode/gpuop322_assert_walk_all_disabled_cut.txt", 19)):
        res = parse_fixture(reader, rel)
        assert reader.detect(open(f"fixtures/artefacts/{rel}").read()) and res.facts == [] and res.lines_used == used, rel

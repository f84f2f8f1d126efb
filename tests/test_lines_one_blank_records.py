"""A terminal-wide row before records that each start one blank in (perftest's lines) is not a cut line's first
row: the record after it is not joined onto it (k8snetworkplumbingwg/sriov-cni#348's pod session, 132 columns:
its ABI warning, then ib_write_bw's " Did not detect devices" / " If device exists, check if driver is up")."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.lines import normalise

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "artefacts"
POD = FIX / "libibverbs" / "sriovcni348_bnxt_re_abi_mismatch_pod_session.txt"
WARNING = ("libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device "
           "/sys/class/infiniband/bnxt_re2")


def test_perftest_records_after_a_terminal_wide_warning_are_not_joined():
    text = POD.read_text()
    assert len(WARNING) == 132 and text.count(WARNING + "\n Did not detect devices\n") == 1
    out = normalise(text)
    assert getattr(out, "joined", None) is None
    assert " Did not detect devices" in out.split("\n")

    # (a cut that fell on the blank before a word, its tail followed by a row at the margin, is still joined:
    # tests/test_lines.py test_a_cut_on_the_blank_between_two_words_is_joined_whatever_the_next_word)

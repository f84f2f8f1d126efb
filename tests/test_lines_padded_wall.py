"""A line a padded screen's copy cut into rows of its width is read whole (issue 11, round rQ5): facts/lines.py
_padded_wall. The real paste joined, near misses kept apart; CONSTRUCTED values say so."""
from pathlib import Path

from stethoscope.engine.parse_pool import parse_one
from stethoscope.facts.lines import normalise
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parent.parent / "fixtures"


def test_a_line_a_padded_screen_cut_is_read_whole():
    # google-research/t5x#864: rows padded to 122 columns, XLA's failure over four of them, a wider sentence above
    text = (FIX / "artefacts" / "xla_nccl" / "t5x864_padded_screen_122_columns.txt").read_text()
    norm = normalise(text)
    assert norm.joined == {6: 3}
    assert norm.split("\n")[5].endswith("comm, gpu_stream) failed: unhandled cuda error")
    assert norm.split("\n")[9].startswith("Traceback (most recent call last):")  # (its padding kept: a row of its own)
    facts = parse_one(Artefact(path="out.txt", text=text)).facts
    assert [(f.kind, f.evidence.line) for f in facts if f.kind == "xla_nccl_error"] == [("xla_nccl_error", 6)]


def test_padded_rows_with_no_cut_are_kept():
    # CONSTRUCTED: a padded screen whose rows all end in their padding (no line longer than the screen), a table padded
    # to one width with "|" last, and a cut row whose next row starts a record of its own (a stamp) are no cut lines
    pad = lambda s: s.ljust(64)  # noqa: E731
    rows = [pad("Traceback (most recent call last):"), pad('  File "train.py", line 3, in <module>'),
            pad("RuntimeError: CUDA error: an illegal memory access was encountered")]
    assert getattr(normalise("\n".join(rows) + "\n"), "joined", None) is None
    table = ["| GPU  Name        Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
             "|   0  NVIDIA A100-SXM4-80GB  On | 00000000:07:00.0 Off |                    0 |",
             "|   1  NVIDIA A100-SXM4-80GB  On | 00000000:0B:00.0 Off |                    0 |  "[:81]]
    assert getattr(normalise("\n".join(table) + "\n"), "joined", None) is None
    stamped = ["2023-10-23 01:07:26.771566: E external/xla/xla/service/gpu/nccl_utils.cc:191] Aborting commu",
               "2023-10-23 01:07:27.000001: E external/xla/xla/service/gpu/nccl_utils.cc:191] Aborting com  ",
               "2023-10-23 01:07:28.000002: E external/xla/xla/service/gpu/nccl_utils.cc:191] Aborting c    "]
    assert len({len(r) for r in stamped}) == 1
    assert getattr(normalise("\n".join(stamped) + "\n"), "joined", None) is None


def test_the_padded_and_indented_gates_are_answered_by_the_classifiers_set():
    """The classifier's set holds PADDED_GATE ("  \\n") and INDENTED_GATE ("\\n "), so normalise does not search a file
    it scanned for them again (normalise's ``padded`` and ``indented``): the set's answer is what ``in`` says, and
    normalise given it reads each text as it does asking itself; the real padded paste and indented paste, and a
    CONSTRUCTED text whose "  \\n" stands only once a colour is off (the gates answered the text as read: normalise
    searches the text it strips the colour from itself)."""
    from stethoscope.facts import classify
    from stethoscope.facts.lines import GLUE_GATE, INDENTED_GATE, PADDED_GATE, UNCUT_GATE

    # CONSTRUCTED: a padded screen's wall (72 columns, no terminal's) whose rows end in a colour's reset, so that "  \n"
    # stands only once the colours are off: its cut line is joined by _padded_wall alone (_unwrap joins nothing here)
    r1 = "RuntimeError: CUDA error: an illegal memory access was encountered while"
    w = len(r1)
    coloured = "\n".join([r1[:-1] + "\x1b[0m" + r1[-1], "running the kernel".ljust(w - 1) + "\x1b[0m ",
                          "Traceback (most recent call last):".ljust(w) + "\x1b[0m",
                          'File "train.py", line 3, in <module>'.ljust(w) + "\x1b[0m"])
    assert "  \n" not in coloured and normalise(coloured + "\n").joined == {1: 1}
    texts = [(FIX / "artefacts" / "xla_nccl" / "t5x864_padded_screen_122_columns.txt").read_text(),
             (FIX / "artefacts" / "kernel_log" / "okm1208_xid31_wrapped_indented_rows.log").read_text(),
             coloured + "\n", "no padding\nnor indentation\n"]
    cls = classify.classifier()
    for text in texts:
        _, wrapped = cls.scan(text)
        gate = classify.gate
        padded, indented = gate(text, PADDED_GATE), gate(text, INDENTED_GATE)
        assert (padded, indented) == ("  \n" in text, "\n " in text), text
        got = normalise(text, not wrapped, None, gate(text, UNCUT_GATE), gate(text, GLUE_GATE), padded, indented)
        want = normalise(text)
        assert got == want and getattr(got, "joined", None) == getattr(want, "joined", None), text
    classify.forget()

"""dkms status and DKMS's errors about its tree (facts/parsers/dkms_status.py), on real pastes."""
from pathlib import Path

from stethoscope.facts.parsers import dkms_status
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "dkms_status"


def _parse(text: str, name: str = "dkms.txt"):
    return dkms_status.parse(Artefact(path=name, text=text, node="n1"))


def _facts(result, kind):
    return [f for f in result.facts if f.kind == kind]


def test_2x_comma_form_and_note():
    text = (FIX / "negativo56_status.txt").read_text()
    assert dkms_status.detect(text)
    r = _parse(text)
    rows = _facts(r, "dkms_module_status")
    assert [(f.module, f.version, f.kernel, f.arch, f.state) for f in rows] == [
        ("nvidia", "396.45", "4.17.11-200.fc28.x86_64", "x86_64", "installed"),
        ("nvidia", "396.45", "4.17.12-200.fc28.x86_64", "x86_64", "installed"),
        ("nvidia", "396.45", "4.17.14-202.fc28.x86_64", "x86_64", "installed")]
    assert r.lines_used == 4  # the '#dkms status' command line too
    # the after-fix line of the same thread: its note kept
    r2 = _parse("$ dkms status\nnvidia, 396.45, 4.17.14-202.fc28.x86_64, x86_64: installed (original_module exists)\n")
    (f,) = _facts(r2, "dkms_module_status")
    assert f.notes == "(original_module exists)" and not _facts(r2, "dkms_tree_broken")


def test_3x_slash_form():
    text = (FIX / "deepin2144_status_3x.txt").read_text()
    assert dkms_status.detect(text)
    rows = _facts(_parse(text), "dkms_module_status")
    assert [(f.module, f.version, f.kernel) for f in rows][2] == ("nvidia-current", "580.119.02", "6.18.48-amd64-desktop-rolling")
    assert len(rows) == 4 and all(f.state == "installed" for f in rows)


def test_conf_missing_is_one_broken_entry_with_its_module():
    text = (FIX / "negativo56_conf_missing.txt").read_text()
    assert dkms_status.detect(text)
    r = _parse(text)
    (b,) = _facts(r, "dkms_tree_broken")
    assert (b.module, b.version, b.form) == ("nvidia", "390.48", "conf_missing")
    assert b.path == "/var/lib/dkms/nvidia/390.48/source/dkms.conf"
    assert b.evidence.line == 2 and r.lines_used == 3


def test_3x_broken_status_and_its_error_are_one_fact():
    # CONSTRUCTED from dkms 3.x do_status (dell/dkms dkms.in): the status line, then error()'s two strings
    r = _parse("nvidia/390.48: broken\n\nError! nvidia/390.48: Missing the module source directory or the symbolic link"
               " pointing to it.\nManual intervention is required!\n")
    (b,) = _facts(r, "dkms_tree_broken")
    assert (b.module, b.version, b.form) == ("nvidia", "390.48", "source_missing") and b.evidence.line == 1


def test_not_dkms():
    # a version-looking "x, 1.0: ..." line that is not a status, and DKMS's build error (package_install's)
    for text in ("Python 3.10: installed packages follow\n",
                 "Error! Bad return status for module build on kernel: 6.15.2-1-liquorix-amd64 (x86_64)\n"):
        assert not dkms_status.detect(text)

"""wsl_version: the Windows host's versions under WSL (wsl --version, cmd.exe /c ver, microsoft/WSL's template), and
host_info's /proc/version banner, on real pastes: context facts, never an error nor a reporter's claim."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import host_info, wsl_version
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def _one(text: str, path: str = "t.txt"):
    assert wsl_version.detect(text)
    res = wsl_version.parse(Artefact(path=path, text=text))
    (f,) = res.facts
    return f, res


def test_wsl7056_template_fields():
    f, res = _one((FIX / "wsl_version/wsl7056_template_fields.md").read_text(), "issue.md")
    assert (f.windows_version, f.wsl_version, f.kernel_version, f.distro, f.wsl2) == (
        "10.0.19042.1052", None, "5.4.72", "Ubuntu 20.04", True)
    assert f.evidence.line == 1
    # the headings and their values are read (engine/foreign_runs.py: no run of them left to the fallback readers)
    assert (1, 4) in res.spans and (10, 13) in res.spans


def test_wsl9962_wsl_exe_version():
    f, res = _one((FIX / "wsl_version/wsl9962_wsl_exe_version.txt").read_text())
    assert (f.windows_version, f.wsl_version, f.kernel_version, f.wsl2) == ("10.0.25342.1001", "1.2.2.0", "5.15.90.1", None)
    assert res.lines_used == 7


def test_the_later_template_form():
    # CONSTRUCTED: the template's later labels (Windows Version, WSL Version holding wsl --version's line, "Are you
    # using WSL 1 or WSL 2?"), values of this project's own choosing
    text = ("### Windows Version\n\nMicrosoft Windows [Version 10.0.22631.2715]\n\n### WSL Version\n\nWSL version: 2.0.9.0\n\n"
            "### Are you using WSL 1 or WSL 2?\n\n- [X] WSL 2\n- [ ] WSL 1\n\n### Kernel Version\n\n"
            "5.15.133.1-microsoft-standard-WSL2\n\n### Distro Version\n\nUbuntu 22.04\n\n### Other Software\n\n_No response_\n")
    f, _ = _one(text)
    assert (f.windows_version, f.wsl_version, f.kernel_version, f.distro, f.wsl2) == (
        "10.0.22631.2715", "2.0.9.0", "5.15.133.1-microsoft-standard-WSL2", "Ubuntu 22.04", True)


def test_no_fact_for_one_heading_or_one_line():
    # must not: one heading of another template, one "Kernel version:" line of another program, prose naming WSL
    for text in ("### Kernel Version\n\n6.8.0-48-generic\n", "Kernel version: 6.8.0\n", "I use WSL 2 on Windows 11.\n", ""):
        assert not wsl_version.detect(text)


def test_host_info_reads_the_proc_version_banner():
    text = (FIX / "host_info/wsl6772_proc_version.txt").read_text()
    assert host_info.detect(text)
    (f,) = host_info.parse(Artefact(path="env.txt", text=text)).facts
    assert (f.kind, f.hostname, f.release) == ("host_kernel", None, "5.4.91-microsoft-standard-WSL2")
    # a sentence naming a kernel version is no banner
    assert not host_info.detect("Linux version 5.15 is what we run.\n")

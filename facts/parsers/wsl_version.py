"""What WSL says of the Windows host a Linux distribution runs under: ``wsl --version``, ``cmd.exe /c ver`` and the
fields of microsoft/WSL's bug template, as people paste them beside a GPU problem under WSL2.

Under WSL2 the GPU belongs to the Windows host: its driver is Windows's, /dev/dxg forwards CUDA's calls to it
(facts/parsers/wsl_dxg.py), and the Linux kernel is Microsoft's (``5.15.146.1-microsoft-standard-WSL2``). These lines
are that context, not a failure nor a reporter's claim.

The forms::

    WSL version: 2.1.5.0                      wsl --version (WSL 0.64 and later, the Store's package; one line a
    Kernel version: 5.15.146.1-2              component: WSLg, MSRDC, Direct3D, DXCore, Windows; English wording only)
    Windows version: 10.0.22631.3593
    Microsoft Windows [Version 10.0.19042.1052]        cmd.exe /c ver (the template's "Windows Build Number")
    ### Windows Version / ### WSL Version / ### Kernel Version / ### Distro Version / ### Are you using WSL 1 or WSL 2?
      (microsoft/WSL .github/ISSUE_TEMPLATE/Bug_Report.yaml's fields as GitHub renders them: the heading, a blank line,
      the value; "### Windows Build Number" and the WSL Version checkboxes "- [X] WSL 2" in its 2021 form)

Sample content (real, microsoft/WSL#7056's template, verbatim)::

    ### Windows Build Number

    Microsoft Windows [Version 10.0.19042.1052]

    ### WSL Version

    - [X] WSL 2
    - [ ] WSL 1

    ### Kernel Version

    5.4.72

Facts: one ``wsl_version`` a file: the Windows version (build), WSL's package version, the kernel version, the distro
and whether WSL 2 is said, each where given. Context only: it checks nothing (knowledge/coverage.yaml). A file with
none of these: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import WslVersion  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "wsl_version"

# WSL version: 2.1.5.0   /   Kernel version: 5.15.146.1-2   /   Windows version: 10.0.22631.3593   (wsl --version)
#   (WSLg, MSRDC, Direct3D and DXCore versions are read as the block's lines, no field)
_WSL_LINE = re.compile(r"^[ \t>]{0,8}(?P<what>WSL|Kernel|WSLg|MSRDC|Direct3D|DXCore|Windows) version: (?P<value>\S{1,80})[ \t]*$",
                       re.M)
# Microsoft Windows [Version 10.0.19042.1052]   (cmd.exe /c ver; microsoft/WSL#7056)
_VER = re.compile(r"^[ \t>]{0,8}Microsoft Windows \[Version (?P<value>\d{1,3}\.\d{1,3}\.\d{1,6}(?:\.\d{1,6})?)\][ \t]*$", re.M)
# ### Kernel Version   (the template's heading: its field's value on the next non-blank line)
_HEADING = re.compile(r"^#{2,4} (?P<field>Windows Version|Windows Build Number|WSL Version|Kernel Version|Distro Version"
                      r"|Are you using WSL 1 or WSL 2\?)[ \t]*$", re.M)
# - [X] WSL 2   (a ticked box of the template's WSL Version or "Are you using WSL 1 or WSL 2?" field)
_TICKED = re.compile(r"^- \[[xX]\] WSL (?P<n>[12])[ \t]*$")
_UNTICKED = re.compile(r"^- \[ \] WSL [12][ \t]*$")

_FIELD = {"Windows Version": "windows", "Windows Build Number": "windows", "WSL Version": "wsl", "Kernel Version":
          "kernel", "Distro Version": "distro"}


def detect(text: str) -> bool:
    if "ersion" not in text and "WSL" not in text:
        return False
    if sum(1 for _ in zip(_WSL_LINE.finditer(text), range(2))) >= 2:  # a block of wsl --version, not one line
        return True
    return _VER.search(text) is not None or len({m["field"] for m in _HEADING.finditer(text)}) >= 2


def _value(lines: list[str], n: int) -> tuple[int, list[str]]:
    """The field's value lines after heading line ``n`` (1-based): up to the next heading; (last line, values)."""
    values, last = [], n
    for i in range(n, min(len(lines), n + 12)):
        line = lines[i]
        if line.startswith("#"):
            break
        last = i + 1
        if line.strip():
            values.append(line.strip())
    return last, values


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    got: dict[str, str] = {}
    first = 0
    wsl2: bool | None = None

    def seen(n: int) -> None:
        nonlocal first
        first = n if not first else min(first, n)

    wsl_lines = [(artefact.text.count("\n", 0, m.start()) + 1, m) for m in _WSL_LINE.finditer(artefact.text)]
    if len(wsl_lines) >= 2:
        for n, m in wsl_lines:
            key = {"WSL": "wsl", "Kernel": "kernel", "Windows": "windows"}.get(m["what"])
            if key:
                got.setdefault(key, m["value"])
            seen(n)
            result.spans.append((n + artefact.line_offset, n + artefact.line_offset))
            result.lines_used += 1
    for m in _VER.finditer(artefact.text):
        n = artefact.text.count("\n", 0, m.start()) + 1
        got.setdefault("windows", m["value"])
        seen(n)
        result.spans.append((n + artefact.line_offset, n + artefact.line_offset))
        result.lines_used += 1
    headings = [(artefact.text.count("\n", 0, m.start()) + 1, m["field"]) for m in _HEADING.finditer(artefact.text)]
    if len({f for _, f in headings}) >= 2:
        for n, field in headings:
            last, values = _value(lines, n)
            for v in values:
                if (t := _TICKED.match(v)) is not None:
                    wsl2 = t["n"] == "2" if wsl2 is None else wsl2 or t["n"] == "2"
                elif _UNTICKED.match(v) is None and field in _FIELD:
                    m = _WSL_LINE.match(v)  # the WSL Version field holding wsl --version's line
                    got.setdefault(_FIELD[field], m["value"] if m is not None else v[:80])
            seen(n)
            result.spans.append((n + artefact.line_offset, last + artefact.line_offset))
            result.lines_used += 1 + len(values)
    if not first:
        return result
    kernel = got.get("kernel")
    if wsl2 is None and kernel is not None and "WSL2" in kernel:
        wsl2 = True
    fb.add(WslVersion, first, windows_version=got.get("windows"), wsl_version=got.get("wsl"), kernel_version=kernel,
           distro=got.get("distro"), wsl2=wsl2)
    return result


#: line signatures (facts/classify.py): one RE2 set over the whole text
SIGNATURES = (_WSL_LINE, _VER, _HEADING)

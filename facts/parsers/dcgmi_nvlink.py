"""``dcgmi nvlink -s`` (``--link-status``, DCGM): the state of every NVLink of every GPU and NvSwitch.

Sample content (2 x H100 NVL, NVIDIA/DCGM#198; the layout is dcgmi/Nvlink.cpp
``DisplayNvLinkLinkStatus``: one row of states per GPU ``gpuId N:`` and NvSwitch ``physicalId N:``,
one character per link: ``U`` up, ``D`` down, ``X`` disabled, ``_`` not supported)::

    +----------------------+
    |  NvLink Link Status  |
    +----------------------+
    GPUs:
        gpuId 0:
            D D D D D D D D D D D D D D D D D D
    NvSwitches:
        No NvSwitches found.

    Key: Up=U, Down=D, Disabled=X, Not Supported=_

Facts: ``nvlink_link_state`` per GPU link that is up (``active``) or down (``inactive``), with
``gpu`` "GPU<gpuId>", ``link`` its position in the row, ``gpu_active_links`` the row's count of
``U``, ``source`` "dcgmi"; ``expected`` stays None: dcgmi does not name the product, and whether
a down link is wired depends on it (knowledge/nvlink_expected.yaml), so the rules judge it with
what else the bundle says. Disabled and not-supported links are read past, as are NvSwitch rows
(their port states are the fabric manager's to judge). A state row with another character is a
parse error. No ``gpuId`` row: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.nvidia_smi_nvlink import NvlinkLinkState

KIND = "dcgmi_nvlink"

# |  NvLink Link Status  |        (DCGM 1.x printed "LwLink")
_TITLE = re.compile(r"^\s*\|\s*(?:Nv|Lw)Link Link Status\s*\|\s*$")
#     gpuId 0:
#     physicalId 8:
_ENTITY = re.compile(r"^\s*(?P<what>gpuId|physicalId) (?P<id>\d+):\s*(?P<states>[UDX_?](?: [UDX_?])*)?\s*$")
#         U U U U U U U U _ _ _ _ _ _ _ _ _ _
_STATES = re.compile(r"^\s*(?P<states>\S(?: \S)+)\s*$")
# Key: Up=U, Down=D, Disabled=X, Not Supported=_
_KEY = re.compile(r"^\s*Key: Up=U, Down=D, Disabled=X, Not Supported=_\s*$")
# GPUs:   /   NvSwitches:   /       No NvSwitches found.
_HEADING = re.compile(r"^\s*(?:GPUs:|NvSwitches:|LwSwitches:|No (?:Nv|Lw)Switches found\.|\+-+\+)\s*$")
_DETECT = re.compile(r"^\s*\|\s*(?:Nv|Lw)Link Link Status\s*\||^\s*Key: Up=U, Down=D, Disabled=X, Not Supported=_", re.M)


def detect(head: str) -> bool:
    return ("Link Status" in head or "Not Supported=_" in head) and _DETECT.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    entity: tuple[str, int, int] | None = None  # (gpuId | physicalId, id, its line)
    for n, line in enumerate(artefact.lines, 1):
        if _TITLE.match(line) or _KEY.match(line) or _HEADING.match(line):
            result.lines_used += 1
            continue
        if m := _ENTITY.match(line):
            result.lines_used += 1
            entity = (m["what"], int(m["id"]), n)
            if m["states"]:  # "gpuId 0: U U U ..." on one line (a reformatted paste)
                _row(fb, n, entity, m["states"])
                entity = None
            continue
        if entity is None or not line.strip():
            continue
        result.lines_used += 1
        m = _STATES.match(line)
        if m is None or any(c not in "UDX_" for c in m["states"].split()):
            fb.error(n, f"dcgmi nvlink: not a row of link states (U, D, X, _) for {entity[0]} {entity[1]}: {line.strip()[:80]!r}")
        else:
            _row(fb, n, entity, m["states"])
        entity = None
    return result


def _row(fb: FactBuilder, n: int, entity: tuple[str, int, int], states: str) -> None:
    what, ident, _ = entity
    if what != "gpuId":
        return  # an NvSwitch's ports
    marks = states.split()
    up = marks.count("U")
    for link, mark in enumerate(marks):
        if mark in ("U", "D"):
            fb.add(NvlinkLinkState, n, gpu=f"GPU{ident}", gpu_index=ident, link=link,
                   state="active" if mark == "U" else "inactive", expected=None, gpu_active_links=up, source="dcgmi")


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)

"""``lsmod`` (whole, or filtered through ``grep`` as operators paste it): the loaded kernel modules.

Sample content (the header and rows of ``lsmod``; a pasted ``lsmod | grep`` that printed nothing,
NVIDIA/nccl#988; rows alone, the command left out, are read when two GPU or RDMA driver
modules open the text, NVIDIA/open-gpu-kernel-modules#246)::

    Module                  Size  Used by
    nvidia_peermem         16384  0
    ib_core               434176  9 rdma_cm,ib_ipoib,nvidia_peermem,iw_cm,ib_umad,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm
    (pytorch) [root@gpu3 ~]# lsmod | grep nvidia_peermem
    (pytorch) [root@gpu3 ~]# lsmod | grep nv_peer_mem

Facts: ``kernel_module`` per row (``name``, ``size`` in bytes, ``use_count``, ``used_by`` as
printed, comma-separated); ``kernel_module_listing`` per listing (the header, or a pasted
``lsmod`` command line): ``filter`` (the grep pattern, None for the whole list) and
``shows_peermem``: whether the listing would show ``nvidia_peermem`` / ``nv_peer_mem`` were it
loaded (the whole list, or a grep whose literal pattern is part of either name). A listing says
what is absent only through this flag: ``lsmod | grep mlx5`` says nothing about peermem. A row
whose size is not a number is a ParseError. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.kernel import (  # noqa: F401 - the fact classes live in facts/kinds
    KernelModule, KernelModuleListing,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "lsmod"

#: the modules that let an RDMA NIC read and write GPU memory (GPUDirect RDMA)
PEERMEM_MODULES = ("nvidia_peermem", "nv_peer_mem")

# Module                  Size  Used by
_HEADER = re.compile(r"^\s*Module\s+Size\s+Used by\s*$")
# (pytorch) [root@gpu3 ~]# lsmod | grep nvidia_peermem        $ lsmod      # lsmod | grep -i peer
_COMMAND = re.compile(r"(?:^|[#$>]\s*)lsmod(?:\s*\|\s*(?:e?grep)\s+(?P<opts>(?:-\w+\s+)*)(?P<pat>['\"]?[\w|\\.-]+['\"]?))?\s*$")
# ib_core               434176  9 rdma_cm,ib_ipoib,nvidia_peermem,...        nvidia_peermem         16384  0
_ROW = re.compile(r"^(?P<name>[a-z0-9_]+)\s+(?P<size>\S+)\s+(?P<count>-?\d+)(?:\s+(?P<users>\S+))?\s*$")
_DETECT = re.compile(r"^\s*Module\s+Size\s+Used by\s*$|lsmod\s*(?:\|\s*e?grep\b[^\n]*)?$", re.M)
# the rows of ``lsmod | grep nvidia`` pasted without the command (NVIDIA/open-gpu-kernel-modules#246):
#   nvidia_drm             61440  0
#   nvidia               4558848  1 nvidia_modeset
# a row of a GPU or RDMA driver's module at the text's start; two such rows make a listing
_GPU_ROW = re.compile(r"^(?:nvidia(?:_[a-z0-9_]+)?|nv_peer_mem|gdrdrv|mlx5_(?:core|ib)|ib_(?:core|uverbs))[ \t]+\d+[ \t]+\d+"
                      r"(?:[ \t]+\S+)?[ \t]*$", re.M)


def _rows_alone(head: str) -> bool:
    """The text starts with lsmod rows, two of them a GPU or RDMA driver's (no header, no command)."""
    first = head.lstrip()[:4096]
    return _GPU_ROW.match(first) is not None and len(_GPU_ROW.findall(first)) >= 2 \
        and all(_ROW.match(r) for r in first.splitlines()[:2])


def shows_peermem(pattern: str | None, ignore_case: bool = False) -> bool:
    if pattern is None:
        return True
    alternatives = pattern.strip("'\"").split("\\|") if "\\|" in pattern else pattern.strip("'\"").split("|")
    for alt in alternatives:
        alt = alt.lower() if ignore_case else alt
        if alt and any(alt in m for m in PEERMEM_MODULES):
            return True
    return False


def detect(head: str) -> bool:
    if "lsmod" not in head and "Used by" not in head:
        return _rows_alone(head)
    return _DETECT.search(head) is not None or _rows_alone(head)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    in_listing = _rows_alone(artefact.text)  # rows without a header: no listing fact (the filter is unknown)
    last_command: int | None = None  # a command line just before the header: the header adds nothing
    for n, line in enumerate(artefact.lines, 1):
        if _HEADER.match(line):
            if last_command != n - 1:
                b.add(KernelModuleListing, n, filter=None, shows_peermem=True)
            in_listing = True
            result.lines_used += 1
            continue
        if "lsmod" in line and (c := _COMMAND.search(line)):
            pat = c["pat"]
            b.add(KernelModuleListing, n, filter=pat.strip("'\"") if pat else None,
                  shows_peermem=shows_peermem(pat, ignore_case="i" in (c["opts"] or "")))
            in_listing, last_command = True, n
            result.lines_used += 1
            continue
        if not in_listing:
            continue
        if (r := _ROW.match(line)) is None:
            if line.strip() and not line.lstrip().startswith(("#", "$")):
                in_listing = False  # the listing ended: other output follows
            continue
        if not r["size"].isdecimal():
            b.error(n, f"lsmod row for {r['name']} with a size that is not a number: {r['size']!r}")
            continue
        b.add(KernelModule, n, name=r["name"], size=int(r["size"]), use_count=int(r["count"]), used_by=r["users"])
        result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT, _GPU_ROW)

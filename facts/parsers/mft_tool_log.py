"""The firmware tools of NVIDIA's MFT and of mstflint (flint, mlxconfig, mstconfig, mlxlink, mlxreg,
mlxfwreset and their ``mst*`` twins) failing to read the NIC they were pointed at.

Sample content (dsx-ai-factory/infra-controller#4102: ``mstconfig -y -d 0000:18:00.0 reset`` on a
DGX H100's ConnectX-7, run by hand; the same tool's output inside a provisioning agent's log line,
its newlines escaped)::

    mstconfig -y -d 0000:18:00.0 reset
    Applying... FATAL - crspace read (0xf0014) failed: No such file or directory
    Failed!

Every tool identifies the device first by reading its device id (address 0xf0014) from the NIC's
configuration space (CR-space); mstflint's dev_mgt/tools_dev_types.c dm_get_device_id prints
``"FATAL - crspace read (0x%x) failed: %s\\n"`` (``strerror(errno)``) when that read fails, and the tool
then gives up (mlxconfig's ``-E- Failed to identify the device``, flint's ``-E- Cannot open Device: %s.
%s`` of flint/err_msgs.h, mstconfig's ``Failed!``: read with the line within a few lines after it).

Facts: ``nic_tool_access_failed`` per FATAL line, with the error text, whether it is one of the
access path's errors (``access_path``: no such file or directory, operation not permitted, permission
denied, invalid argument, operation not supported: the tool's way in, a missing MST or mstflint_access
module, a container without the device, kernel lockdown, a tool build that maps the BAR wrongly) or
another (an I/O error: the device did not answer), and the device (``-d``) and tool where the line or
the three before it name them. A text without the FATAL line yields nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import NicToolAccessFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "mft_tool_log"

# Applying... FATAL - crspace read (0xf0014) failed: No such file or directory      (infra-controller#4102)
#   (an escaped log line holds the same text followed by "\nFailed!\n-E- Failed to identify the device\n")
_CRSPACE = re.compile(r"\bFATAL - crspace read \(0x[0-9a-fA-F]{1,8}\) failed: (?P<error>[A-Za-z][A-Za-z /'-]{0,60})")
# the tool's own giving-up lines after it (mlxconfig MlxcfgException, flint FLINT_OPEN_FWOPS_DEVICE_ERROR, mstconfig)
_GAVE_UP = re.compile(r"^\s*(?:-E- (?:Failed to identify the device|Cannot open Device: )|Failed!\s*$)")
# mstconfig -y -d 0000:18:00.0 reset   /   [\"-y\", \"-d\", \"0000:18:00.0\", \"reset\"]
_DEVICE = re.compile(r"(?:^|[\s\[,])\\?\"?-d\\?\"?,?\s{1,4}\\?\"?(?P<dev>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]|/dev/mst/[\w.-]{1,60}|pciconf-[\w:.-]{1,40})")
_TOOL = re.compile(r"\b(?P<tool>mstconfig|mlxconfig|mstflint|flint|mlxlink|mstlink|mlxreg|mstreg|mlxfwreset|mstfwreset|mlxfwmanager)\b")
#: strerror texts of the access path itself: the tool could not get in, the device was not asked
_ACCESS_ERRORS = ("No such file or directory", "Operation not permitted", "Permission denied", "Invalid argument",
                  "Operation not supported")
_LOOKBACK = 3
_GAVE_UP_AFTER = 3


def detect(text: str) -> bool:
    return "crspace read" in text and bool(_CRSPACE.search(text))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    read_after: set[int] = set()
    for n, line in iter_lines_with(("crspace read",), artefact):
        m = _CRSPACE.search(line)
        if m is None:
            continue
        error = m["error"].strip()
        context = lines[max(0, n - 1 - _LOOKBACK):n]  # the three lines before it and the line itself
        dev = tool = None
        for text in reversed(context):
            dev = dev or ((d := _DEVICE.search(text)) and d["dev"])
            tool = tool or ((t := _TOOL.search(text)) and t["tool"])
        fb.add(NicToolAccessFailed, n, error=error, access_path=error in _ACCESS_ERRORS, device=dev or None,
               tool=tool or None, message=m[0])
        result.lines_used += 1
        for k in range(n + 1, min(n + _GAVE_UP_AFTER, len(lines)) + 1):
            if k not in read_after and _GAVE_UP.search(lines[k - 1]):
                read_after.add(k)
                result.lines_used += 1
    return result


#: line signatures (facts/classify.py): one RE2 set over the whole text
SIGNATURES = (_CRSPACE.pattern,)

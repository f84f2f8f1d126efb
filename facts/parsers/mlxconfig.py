"""``mlxconfig -e -d <dev> query`` (MFT) / ``mstconfig -e -d <dev> q`` (mstflint): a ConnectX NIC's
firmware configuration, and which changes are waiting for the next firmware reset.

Sample content (openshift/sriov-network-operator#48, k8snetworkplumbingwg/sriov-network-operator#492)::

    Device #1:
    ----------

    Device type:    ConnectX5
    Name:           MCX556A-ECA_Ax
    Device:         0000:02:00.1

    Configurations:                              Default         Current         Next Boot
             MEMIC_BAR_SIZE                      0               0               0
             PF_NUM_OF_VF_VALID                          False(0)        False(0)        False(0)
    *        ROCE_CONTROL

The columns are those the ``Configurations:`` header names: ``Next Boot`` alone (a plain query,
which shows no current value), ``Default Current Next Boot`` (``-e``), ``Next Boot New`` (a ``set``
asking for confirmation). mlxconfig marks with ``*`` a line whose next value differs from the
default or the current one (mlxcfg_ui.cpp: "The '*' shows parameters with next value different from
default/current value."); only Next Boot against Current says a change is not in effect yet.

Facts: ``mlxconfig_setting`` per line whose Next Boot differs from its Current value (``pending``);
other lines are read (lines used) and make no fact: a configuration in effect judges nothing. A
line cut before its last column (a paste that ends there) is read past. Empty output: nothing read.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.nic_config import MlxconfigSetting
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "mlxconfig"

# Configurations:                              Default         Current         Next Boot
_HEAD = re.compile(r"^\s{0,8}Configurations:(?P<cols>(?:[ \t]{1,80}(?:Default|Current|Next Boot|New|RO)){1,4})\s*$")
# Device type:    ConnectX5        /  Device:         0000:02:00.1
_DEV = re.compile(r"^\s{0,8}Device(?P<type> type)?:[ \t]{1,40}(?P<value>\S{1,60})\s*$")
#          MEMIC_SIZE_LIMIT                    _256KB(1)       _256KB(1)       _256KB(1)
# *        ADVANCED_PCI_SETTINGS               False(0)        True(1)         True(1)
_ROW = re.compile(r"^(?P<mark>\*|RO)?[ \t]{1,16}(?P<name>[A-Z][A-Z0-9_]{1,60}(?:\[\d{1,4}(?:\.\.\d{1,4})?\])?)(?P<values>(?:[ \t]{1,60}\S{1,80}){1,4})\s*$")
# root@node1:~# mlxconfig -e -d /dev/mst/mt4129_pciconf0 q     /    mstconfig -d 0000:b1:00.0 q
_CMD = re.compile(r"\b(?:mlxconfig|mstconfig)\b[^\n]{0,200}?\s-d\s{1,4}(?P<dev>\S{1,80})")
_DETECT = re.compile(r"^\s{0,8}Configurations:[ \t]{1,80}(?:Default|Next Boot)", re.M)


def detect(head: str) -> bool:
    return "Configurations:" in head and bool(_DETECT.search(head))  # a cheap gate


def _pci(dev: str) -> str:
    """``c2:00.0`` / ``0000:C2:00.0`` -> ``0000:c2:00.0`` (facts/ids.py); an mst path or name as given."""
    return try_pci_bus_id(dev) or dev


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    cols: list[str] | None = None
    device: str | None = None
    device_type: str | None = None
    for n, line in enumerate(artefact.lines, 1):
        if line.startswith("Device #"):  # the next device's block
            cols, device, device_type = None, None, None
            continue
        h = _HEAD.match(line)
        if h:
            cols = re.findall(r"Default|Current|Next Boot|New|RO", h["cols"])
            result.lines_used += 1
            continue
        if cols is None:
            m = _CMD.search(line)
            if m:
                device = _pci(m["dev"])
                continue
            d = _DEV.match(line)
            if d:
                if d["type"]:
                    device_type = d["value"]
                else:
                    device = _pci(d["value"])
                result.lines_used += 1
            continue
        m = _ROW.match(line)
        if m is None:
            if line.strip():
                cols = None  # the table ended ("The '*' shows parameters ...", a prompt)
            continue
        values = m["values"].split()
        result.lines_used += 1
        if len(values) != len(cols):
            continue  # cut before its last column, or a value with a space in it
        row = dict(zip(cols, values))
        cur, nxt = row.get("Current"), row.get("Next Boot")
        if cur is None or nxt is None or cur == nxt:
            continue
        fb.add(MlxconfigSetting, n, device=device, device_type=device_type, name=m["name"], default=row.get("Default"),
               current=cur, next_boot=nxt, pending=True)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)

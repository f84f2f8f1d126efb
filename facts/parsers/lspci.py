"""``lspci -vvv`` (pciutils): each PCI device's link (``LnkCap``/``LnkSta``) and ACS control.

Sample content (HeyMeco/Rockchip-pcie-devices#6, geerlingguy/sbc-reviews#50, NVIDIA/nccl#304)::

    0000:02:08.0 PCI bridge: PLX Technology, Inc. PEX 8725 24-Lane, 10-Port PCI Express Gen 3 (8.0 GT/s) Multi-Root Switch with DMA (rev ca) (prog-if 00 [Normal decode])
            Bus: primary=02, secondary=82, subordinate=82, sec-latency=0
            Capabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00
                    LnkCap: Port #0, Speed 8GT/s, Width x4, ASPM L1, Exit Latency L1 <64us
                    LnkSta: Speed 5GT/s (downgraded), Width x2 (downgraded)
                    ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-

Fragments are read too: ``lspci -vvv | grep -i acsctl`` output (ACSCtl lines only, the device
unknown) and a device's capability lines without its header line (no bus id: the block is
named by the line of the fact, ``line 12``). A pasted command line ``$ lspci -s d2:00.0 -vv``
names the device of the lines after it; any ``-vvv`` line signature recognises the output
(``LnkCtl:``, ``DevCap:``, ``Capabilities: [..]``, ``Kernel driver in use:``, the Vital Product
Data lines ``Product Name:`` and ``[PN] Part number:``), e.g. (leptonai/gpud#1164)::

    $ lspci -nn -s d2:00.0 -vv|grep -i umb|head -1
    \t\tProduct Name: Nvidia ConnectX-7 mezz internal for Nvidia Umbriel system

Facts: ``pcie_device`` per header line (bus id, class, name, what it is: gpu, nic, bridge,
other); ``pcie_link_status`` per ``LnkSta:`` line, with the capability of the ``LnkCap:``
line before it in the same device (speeds in GT/s, widths in lanes, whether each is below
the capability, whether there is no link at all: width x0); ``pcie_acs_control`` per
``ACSCtl:`` line, with each flag and whether the device's bridge has a GPU or NIC of the same
output behind it (``yes``/``no``, or ``unknown`` when the output does not list them);
``pcie_vpd_product`` per VPD ``Product Name:`` line (the board's own name, e.g. which ConnectX).
Output without LnkSta or ACSCtl lines yields only devices.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.host import (  # noqa: F401 - the fact classes live in facts/kinds
    PcieAcsControl, PcieDevice, PcieLinkStatus, PcieVpdProduct,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "lspci"

# 0000:02:08.0 PCI bridge: PLX Technology, Inc. PEX 8725 24-Lane, ... (rev ca) (prog-if 00 [Normal decode])
# 17:00.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 SXM4 80GB] [10de:20b2] (rev a1)
_HEAD = re.compile(
    r"^(?P<bdf>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) (?P<cls>[A-Za-z][\w /-]*?)(?: \[[0-9a-f]{4}\])?: (?P<name>.*\S|[^\S\n])\s*$")
#         Bus: primary=02, secondary=82, subordinate=82, sec-latency=0
_BUS = re.compile(r"^\s+Bus: primary=(?P<pri>[0-9a-f]+), secondary=(?P<sec>[0-9a-f]+), subordinate=(?P<sub>[0-9a-f]+)")
#         Capabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00
_EXPRESS = re.compile(r"^\s+Capabilities: \[[0-9a-f]+\] Express \(v\d\) (?P<type>Root Port|Downstream Port|Upstream Port|Endpoint|Legacy Endpoint|Root Complex Integrated Endpoint|PCI-Express to PCI/PCI-X Bridge)")
#                 LnkCap: Port #0, Speed 8GT/s, Width x4, ASPM L1, Exit Latency L1 <64us
_LNKCAP = re.compile(r"^\s*LnkCap:\s+(?:Port #\d+, )?Speed (?P<speed>\d+(?:\.\d+)?|unknown)GT/s, Width x(?P<width>\d+)")
#                 LnkSta: Speed 5GT/s (downgraded), Width x2 (downgraded)   /   LnkSta: Speed 5GT/s, Width x4
_LNKSTA = re.compile(r"^\s*LnkSta:\s+Speed (?P<speed>\d+(?:\.\d+)?|unknown) ?GT/s(?: \((?P<sflag>\w+)\))?, Width x(?P<width>\d+)(?: \((?P<wflag>\w+)\))?")
#                 ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
_ACSCTL = re.compile(r"^\s*ACSCtl:\s+(?P<flags>(?:\w+[+-]\s*)+)$")
_FLAG = re.compile(r"(\w+)([+-])")
# $ lspci -nn -s d2:00.0 -vv|grep -i umb|head -1
_COMMAND = re.compile(r"^\s*(?:[\w@.:~/-]*[$#]\s*)?(?:sudo\s+)?(?:/\S*/)?lspci(?=\s+-|\s*\||\s*$)(?P<args>[^|]*)")
_SELECT = re.compile(r"(?:^|\s)-s\s*(?P<bdf>(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\b")
# 		Product Name: Nvidia ConnectX-7 mezz internal for Nvidia Umbriel system
# (two levels deep under "Capabilities: [48] Vital Product Data"; dmidecode's "Product Name:" is one deep)
_VPD_NAME = re.compile(r"^(?:\t\t|\s{3,})Product Name: (?P<name>\S(?:.*\S)?)\s*$")
# 			[PN] Part number: MCX75310AAS-NEAT
_VPD_FIELD = re.compile(r"^\s+\[(?:PN|EC|SN|MN|V\d|VA|RV)\] [\w ]+:")
# 		LnkCtl:	ASPM Disabled; RCB 64 bytes, Disabled- CommClk+   /   	Kernel driver in use: mlx5_core
_VVV_LINE = re.compile(r"^\s+(?:LnkCtl2?|LnkCap2|LnkSta2|DevCap2?|DevCtl2?|DevSta|SltCap|SltCtl|SltSta|RootCtl|RootCap|RootSta"
                       r"|UESta|UEMsk|UESvrt|CESta|CEMsk|AERCap|HeaderLog|Kernel driver in use|Kernel modules|Capabilities: \[[0-9a-f]+\])[: ]")
# The -vvv field lines no literal of _GATES names, as a signature (engine/foreign_runs.py: a line a reader's signature
# matches is of its format). Several say "Timeout" or "Error" in a field's name, no failure: a root port's block pasted
# without its header (openucx/ucx#9520, an empty hot-plug slot's port: Width x0, DLActive-) read FAULTY
# unexplained_error on its DevCap2 / DevCtl2 lines:
#                 DevCap2: Completion Timeout: Range BCD, TimeoutDis+, LTR-, OBFF Not Supported ARIFwd+
#                 DevCtl2: Completion Timeout: 65ms to 210ms, TimeoutDis-, LTR-, OBFF Disabled ARIFwd-
#   (pciutils ls-caps.c cap_express_dev2: "\t\tDevCap2: Completion Timeout: %s, TimeoutDis%c, ...", "\t\tDevCtl2: Completion
#   Timeout: %s, TimeoutDis%c ..."; ls-ecaps.c cap_aer: "... Rollover%c Timeout%c AdvNonFatalErr%c", "\t\tAERCap:\tFirst Error
#   Pointer: %02x, ...")
_VVV_FIELDS = (r"(?m)^[ \t]*(?:LnkCtl2|LnkCap2|LnkSta2|DevCap2|DevCtl2|DevCtl|SltCap|SltCtl|SltSta|RootCtl|RootCap|RootSta"
               r"|UESta|UEMsk|UESvrt|CESta|CEMsk|AERCap|HeaderLog):")
_DETECT = re.compile(r"^\s*(?:LnkSta|ACSCtl|LnkCap):\s|^(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] (?:PCI bridge|3D controller|VGA compatible controller|Infiniband controller|Ethernet controller)"
                     r"|^(?:\t\t|\s{3,})Product Name: |^\s+\[(?:PN|SN)\] (?:Part|Serial) number:"
                     r"|^\s+(?:LnkCtl|DevCap|DevSta|Kernel driver in use):\s|^\s+Capabilities: \[[0-9a-f]+\] "
                     r"|^\s*(?:[\w@.:~/-]*[$#]\s*)?(?:sudo\s+)?(?:/\S*/)?lspci(?=\s+-|\s*\||\s*$)", re.M)

_NIC_CLASSES = ("Infiniband controller", "Ethernet controller", "Network controller")
_GPU_CLASSES = ("3D controller", "VGA compatible controller", "Display controller")


_GATES = ("LnkSta:", "ACSCtl:", "LnkCap:", " controller", "PCI bridge", "Product Name: ", "] Part number:", "] Serial number:",
          "LnkCtl:", "DevCap:", "DevSta:", "Kernel driver in use:", "Capabilities: [", "lspci")


def detect(head: str) -> bool:
    if not any(g in head for g in _GATES):
        return False
    return bool(_DETECT.search(head))


def _gts(raw: str) -> float | None:
    return None if raw == "unknown" else float(raw)


def _type(cls: str, name: str) -> str:
    if cls in _GPU_CLASSES and "NVIDIA" in name:
        return "gpu"
    if cls in _NIC_CLASSES:
        return "nic"
    if cls == "PCI bridge":
        return "bridge"
    return "other"


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    dev: dict = {}  # the current device block
    devices: list[dict] = []
    pending: list[tuple[int, dict, dict]] = []  # (line, block, fields) of LnkSta/ACSCtl, emitted at the end
    for n, line in enumerate(artefact.lines, 1):
        if "lspci" in line and (c := _COMMAND.match(line)):
            sel = _SELECT.search(c["args"])
            bus = sel and try_pci_bus_id(sel["bdf"] if sel["bdf"].count(":") == 2 else f"0000:{sel['bdf']}")
            dev = {"bus": bus, "type": "unknown", "line": n} if bus else {}  # `-s BDF`: the lines after it are that device's
            result.lines_used += 1
            continue
        m = _HEAD.match(line)
        if m and (bus := try_pci_bus_id(m["bdf"] if m["bdf"].count(":") == 2 else f"0000:{m['bdf']}")):
            dev = {"bus": bus, "cls": m["cls"], "name": m["name"], "type": _type(m["cls"], m["name"]), "line": n}
            devices.append(dev)
            result.lines_used += 1
            continue
        if not dev and line.strip():  # capability lines before any header: an unnamed block
            dev = {"bus": None, "type": "unknown", "line": n}
        if m := _BUS.match(line):
            dev["secondary"], dev["subordinate"] = int(m["sec"], 16), int(m["sub"], 16)
            result.lines_used += 1
        elif m := _EXPRESS.match(line):
            dev["port_type"] = m["type"]
            result.lines_used += 1
        elif m := _LNKCAP.match(line):
            dev["cap"] = (_gts(m["speed"]), int(m["width"]))
            result.lines_used += 1
        elif m := _LNKSTA.match(line):
            pending.append((n, dev, {"link": m}))
            result.lines_used += 1
        elif m := _ACSCTL.match(line):
            pending.append((n, dev, {"acs": dict(_FLAG.findall(m["flags"])), "flags": m["flags"].strip()}))
            result.lines_used += 1
        elif m := _VPD_NAME.match(line):
            pending.append((n, dev, {"vpd": m["name"]}))
            result.lines_used += 1
        elif _VPD_FIELD.match(line) or _VVV_LINE.match(line):
            result.lines_used += 1
        elif "ACSCtl:" in line or "LnkSta:" in line:
            # '\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ Upstream' ending the text (noonghunna/club-3090#1028)
            fb.error_unless_last(n, f"lspci: unreadable {line.strip()[:40]!r}", "an lspci ACSCtl/LnkSta line")
    for dev in devices:
        fb.add(PcieDevice, dev["line"], pci_bus_id=dev["bus"], class_name=dev["cls"], name=dev["name"],
               device_type=dev["type"], port_type=dev.get("port_type"))
    endpoints = [d for d in devices if d["type"] in ("gpu", "nic")]
    for n, dev, got in pending:
        common = {"device": dev["bus"] or f"line {n}", "pci_bus_id": dev["bus"], "device_type": dev["type"],
                  "name": dev.get("name"), "port_type": dev.get("port_type", "unknown")}
        if "vpd" in got:
            fb.add(PcieVpdProduct, n, device=common["device"], pci_bus_id=dev["bus"], product_name=got["vpd"])
            continue
        if "link" in got:
            m = got["link"]
            speed, width = _gts(m["speed"]), int(m["width"])
            cap_speed, cap_width = dev.get("cap", (None, None))
            fb.add(PcieLinkStatus, n, **common, speed_gts=speed, width=width, cap_speed_gts=cap_speed, cap_width=cap_width,
                   speed_below_cap=bool(speed and cap_speed and speed < cap_speed) or (m["sflag"] == "downgraded" and width > 0),
                   width_below_cap=bool(width and cap_width and width < cap_width) or (m["wflag"] == "downgraded" and width > 0),
                   no_link=width == 0, marked_downgraded="downgraded" in (m["sflag"], m["wflag"]))
            continue
        acs = got["acs"]
        on = lambda k: acs.get(k) == "+"  # noqa: E731
        fb.add(PcieAcsControl, n, **common, flags=got["flags"], source_validation=on("SrcValid"), request_redirect=on("ReqRedir"),
               completion_redirect=on("CmpltRedir"), upstream_forwarding=on("UpstreamFwd"), egress_control=on("EgressCtrl"),
               direct_translated=on("DirectTrans"), redirects_peer_traffic=on("ReqRedir") or on("CmpltRedir"),
               p2p_devices_behind=_behind(dev, endpoints))
    return result


def _behind(dev: dict, endpoints: list[dict]) -> str:
    """Whether a GPU or NIC of the same output sits below this bridge (on its bus range)."""
    if "secondary" not in dev or not endpoints:
        return "unknown"
    lo, hi = dev["secondary"], dev["subordinate"]
    return "yes" if any(lo <= int(e["bus"].split(":")[1], 16) <= hi for e in endpoints) else "no"


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = ("|".join(re.escape(g) for g in _GATES), _VVV_FIELDS)

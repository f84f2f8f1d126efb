"""A PCIe link's state read from sysfs: ``current_link_speed``, ``current_link_width``, ``max_link_speed`` and
``max_link_width`` of a device's folder (``/sys/bus/pci/devices/<bdf>/``, ``/sys/devices/pci.../<bdf>/``, or the
``device`` link of a class device: ``/sys/class/drm/card0/device/``, ``/sys/class/net/<if>/device/``,
``/sys/class/infiniband/<hca>/device/``), in the shapes operators paste them.

The kernel writes one value per file (drivers/pci/pci-sysfs.c: current_link_speed_show and max_link_speed_show
``sysfs_emit(buf, "%s\\n", pci_speed_string(speed))``, "2.5 GT/s PCIe" .. "64.0 GT/s PCIe" or "Unknown"; kernels up to
5.6 wrote "2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s" or "Unknown speed"; current_link_width_show and max_link_width_show
``"%u\\n"``, the lanes). Sample content (``tail -v -n +1 /sys/bus/pci/devices/0000\\:01\\:00.0/*_link_*``,
nokyan/resources#512)::

    ==> /sys/bus/pci/devices/0000:01:00.0/current_link_speed <==
    16.0 GT/s PCIe

    ==> /sys/bus/pci/devices/0000:01:00.0/current_link_width <==
    8

Also ``grep . <files>`` (GNU grep's ``<file>:<line>`` for more than one file) and ``cat <file>`` with the value on the
next line. Facts: one ``pcie_link_status`` per device whose current width is pasted (the last reading of each file),
against its maximum where that is pasted too: the same judgement as lspci's LnkSta against LnkCap (below_cap, no link
at width 0). The device is its bus id where the path names one, else the class device (``card0``, ``mlx5_0``); a
``net`` or ``infiniband`` device is a NIC, a ``drm`` card a GPU, a bus path's device of unknown type (its speed is not
judged: a GPU lowers its link speed at idle). Values of no such form are left unread. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.host import PcieLinkStatus
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "sysfs_pcie_link"

# A device's folder and the attribute file:
# /sys/bus/pci/devices/0000:01:00.0/current_link_speed               (nokyan/resources#512)
# /sys/class/drm/card0/device/max_link_width                          (the device link of a DRM card)
_PATH = (r"(?P<dev>/sys/(?:bus/pci/devices|devices|class/(?P<cls>drm|net|infiniband))(?:/[\w.:-]{1,64}){1,14}?)"
         r"/(?P<attr>(?:current|max)_link_(?:speed|width))")
# ==> /sys/bus/pci/devices/0000:01:00.0/current_link_speed <==        (tail -v / head -v: the value on the next line)
_TAIL = re.compile(r"^[ \t]*==> " + _PATH + r" <==[ \t\r]*$")
# /sys/bus/pci/devices/0000:01:00.0/current_link_width:8             (grep . <files>: GNU grep's "%s:" file prefix)
_GREP = re.compile(r"^[ \t]*" + _PATH + r":(?P<value>[^\n]{1,40}?)[ \t\r]*$")
# $ cat /sys/bus/pci/devices/0000:01:00.0/max_link_speed             (the value on the next line)
_CAT = re.compile(r"\bcat[ \t]+" + _PATH + r"[ \t\r]*$")
# > tail -v -n +1 /sys/bus/pci/devices/0000\:01\:00.0/*_link_*        (the command that printed them: read, no value)
_COMMAND = re.compile(r"^[ \t]*(?:[$#>%][ \t]*)?(?:sudo[ \t]+)?(?:tail|head|grep)\b[^\n]{0,300}?/sys/[^\n]{0,300}?_link_")
# A file's value, by the attribute's last word:
_VALUE = {
    # 16.0 GT/s PCIe   /   8 GT/s   /   Unknown   /   Unknown speed     (pci_speed_string; before 5.7 the bare rate)
    "speed": re.compile(r"^[ \t]*(?:(?P<gts>\d{1,3}(?:\.\d{1,2})?) GT/s(?: PCIe)?|Unknown(?: speed)?)[ \t\r]*$"),
    # 8   /   16                                                        ("%u\n": the lanes)
    "width": re.compile(r"^[ \t]*(?P<lanes>\d{1,2})[ \t\r]*$"),
}
_BDF = re.compile(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]")
_DETECT = re.compile(r"^[ \t]*==> /sys/\S{1,900}/(?:current|max)_link_(?:speed|width) <==|"
                     r"^[ \t]*/sys/\S{1,900}/(?:current|max)_link_(?:speed|width):[^\n]|"
                     r"\bcat[ \t]+/sys/\S{1,900}/(?:current|max)_link_(?:speed|width)[ \t\r]*$", re.M)


def detect(head: str) -> bool:
    return "_link_" in head and _DETECT.search(head) is not None


def _value(attr: str, text: str) -> tuple[bool, float | int | None]:
    """(read, value) of one attribute's text: a speed in GT/s (None: Unknown) or the lanes."""
    m = _VALUE[attr.rsplit("_", 1)[1]].match(text)
    if m is None:
        return False, None
    if attr.endswith("speed"):
        return True, float(m["gts"]) if m["gts"] else None
    return True, int(m["lanes"])


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    devices: dict[str, dict] = {}  # device -> attr -> (line, value); "_cls", "_bdf"
    waiting: tuple[re.Match, int] | None = None  # a tail header or cat line: its value is on the next non-blank line
    for n, line in enumerate(artefact.lines, 1):
        if waiting is not None:
            if not line.strip():
                continue
            m, _ = waiting
            waiting = None
            read, value = _value(m["attr"], line)
            if read:
                _keep(devices, m, n, value)
                result.lines_used += 1
                continue
        if "_link_" not in line:
            continue
        if (m := _TAIL.match(line)) is not None or (m := _CAT.search(line)) is not None:
            waiting = (m, n)
            result.lines_used += 1
        elif (m := _GREP.match(line)) is not None:
            read, value = _value(m["attr"], m["value"])
            if read:
                _keep(devices, m, n, value)
                result.lines_used += 1
        elif _COMMAND.match(line) is not None:
            result.lines_used += 1
    for name, got in devices.items():
        if "current_link_width" not in got:
            continue  # no current width: nothing to judge (the fact needs the lanes)
        line, width = got["current_link_width"]
        speed = got.get("current_link_speed", (0, None))[1]
        cap_speed = got.get("max_link_speed", (0, None))[1]
        cap_width = got.get("max_link_width", (0, None))[1]
        cls = got["_cls"]
        fb.add(PcieLinkStatus, line, device=name, pci_bus_id=got["_bdf"],
               device_type="nic" if cls in ("net", "infiniband") else "gpu" if cls == "drm" else "unknown",
               speed_gts=speed, width=width, cap_speed_gts=cap_speed, cap_width=cap_width,
               speed_below_cap=bool(speed and cap_speed and speed < cap_speed and width > 0),
               width_below_cap=bool(width and cap_width and width < cap_width), no_link=width == 0)
    return result


def _keep(devices: dict[str, dict], m: re.Match, n: int, value: float | int | None) -> None:
    """One attribute's reading for the device of its path (a later reading of the same file replaces it)."""
    bdfs = _BDF.findall(m["dev"])
    bdf = try_pci_bus_id(bdfs[-1]) if bdfs else None
    name = bdf or m["dev"].rstrip("/").split("/")[-2 if m["cls"] else -1]
    got = devices.setdefault(name, {"_cls": m["cls"], "_bdf": bdf})
    got[m["attr"]] = (n, value)


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)

"""``ethtool <iface>``: an interface's link settings and state (ethtool's default command, the
``do_gset`` / netlink ``settings.c`` output): the link modes it supports and advertises, what its
link partner advertised, the speed and duplex it runs at, and whether a link is detected.

Sample content (openucx/ucx#10430, an RDMA bond; openwrt/openwrt#22126 for
``Unknown!``; ublue-os/bazzite#5094 for a partner's modes)::

    [root@node12 ucx-1.18.0]# ethtool bond0
    Settings for bond0:
            Supported link modes:   Not reported
            Advertised link modes:  10000baseSR/Full
                                    25000baseSR/Full
            Link partner advertised link modes:  10baseT/Half 10baseT/Full
            Speed: 200000Mb/s            (``Speed: Unknown!`` when the driver reports none)
            Duplex: Full                 (``Duplex: Unknown! (255)``)
            Auto-negotiation: off
            Link detected: yes           (netlink: ``Link detected: no (No cable)`` adds the extended state)

The form is ethtool's own (ethtool.c dump_link_usettings / netlink/settings.c: ``Settings for %s:``,
``\\tSpeed: %uMb/s`` or ``\\tSpeed: Unknown!``, ``\\tLink detected: %s`` yes/no, link modes printed
``Not reported`` or one ``<speed>base<media>/<duplex>`` name after another, continued on lines
indented under the first). A link mode's name begins with its speed in Mb/s (ethtool's
link_modes table: ``100000baseCR4/Full`` is 100000 Mb/s), so the fastest mode of a list is read
from the names.

Facts: one ``nic_link_settings`` per ``Settings for`` block: the interface, ``link_detected``
(None when the paste stops before that line), the speed in Mb/s (None for ``Unknown!``), duplex,
auto-negotiation, the fastest supported / advertised / partner-advertised speed, and
``capable_mbps``: the fastest speed both ends can run with auto-negotiation on (the fastest
advertised mode, else the fastest supported one, capped by the partner's fastest common speed
where the partner's modes are shown). With auto-negotiation off the speed is forced and
``capable_mbps`` is None (a deliberate speed is no fault). Rules compare the fields
(rules/network/nic_link_not_detected.yaml, nic_link_speed_below_capability.yaml).
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.network import NicLinkSettings
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "ethtool_settings"

# Settings for bond0:
_BANNER = re.compile(r"^Settings for (?P<iface>[\w.@-]{1,64}):\s*$")
#         Supported link modes:   Not reported
#         Advertised link modes:  10baseT/Half 10baseT/Full
#         Link partner advertised link modes:  10baseT/Half 10baseT/Full
_MODES = re.compile(r"^\s{1,16}(?P<which>Supported|Advertised|Link partner advertised) link modes:\s{0,40}(?P<modes>[^\n]{0,400})$")
#                                 100baseT/Half 100baseT/Full      (a list continued under its first line)
_MODES_MORE = re.compile(r"^\s{8,80}(?P<modes>\d{1,7}base[^\n]{0,400})$")
# 100000baseCR4/Full  (one mode of a list: its speed in Mb/s is the number it starts with)
_MODE = re.compile(r"^(?P<mbps>\d{1,7})base[A-Za-z0-9_]{1,24}(?:/(?:Full|Half))?$")
#         Speed: 200000Mb/s      /      Speed: Unknown!
_SPEED = re.compile(r"^\s{1,16}Speed: (?:(?P<mbps>\d{1,7})Mb/s|(?P<unknown>Unknown!))\s*$")
#         Duplex: Full    /    Duplex: Unknown! (255)
_DUPLEX = re.compile(r"^\s{1,16}Duplex: (?P<duplex>Full|Half|Unknown![^\n]{0,20})\s*$")
#         Auto-negotiation: off
_AUTONEG = re.compile(r"^\s{1,16}Auto-negotiation: (?P<an>on|off)\b")
#         Link detected: yes     /     Link detected: no (No cable)
_LINK = re.compile(r"^\s{1,16}Link detected: (?P<link>yes|no)(?: \((?P<detail>[^()\n]{1,120})\))?\s*$")
#: any other "Key: value" line of the block (Port, PHYAD, Transceiver, Supported ports, ...): read
_OTHER = re.compile(r"^\s{1,16}[A-Z][\w -]{1,50}:")

_DETECT = re.compile(r"^Settings for [\w.@-]{1,64}:\s*$", re.M)
_DETECT_BODY = re.compile(r"^\s{1,16}(?:Link detected: (?:yes|no)|Speed: (?:\d{1,7}Mb/s|Unknown!)|Supported link modes:)", re.M)


def detect(head: str) -> bool:
    return "Settings for " in head and bool(_DETECT.search(head)) and bool(_DETECT_BODY.search(head))


def _fastest(modes: list[int]) -> int | None:
    return max(modes) if modes else None


def _close(fb: FactBuilder, block: dict | None) -> None:
    if block is None:
        return
    sup, adv, partner = block["supported"], block["advertised"], block["partner"]
    ours, source = (adv, "advertised") if adv else (sup, "supported")
    capable = None
    if block["autoneg"] is not False and ours:
        if partner:
            common = set(ours) & set(partner)
            capable = max(common) if common else None
            source = f"{source} and partner"
        else:
            capable = max(ours)
    fb.add(NicLinkSettings, block["line"], interface=block["iface"], link_detected=block["link"],
           link_state_detail=block["detail"], speed_mbps=block["speed"], speed_printed=block["speed_printed"],
           duplex=block["duplex"], autoneg=block["autoneg"], supported_max_mbps=_fastest(sup),
           advertised_max_mbps=_fastest(adv), partner_max_mbps=_fastest(partner),
           capable_mbps=capable, capable_from=source if capable is not None else None)


def _speeds(text: str) -> list[int]:
    return [int(m["mbps"]) for tok in text.split() if (m := _MODE.match(tok))]


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    block: dict | None = None
    listing: str | None = None  # the link-mode list a continued line belongs to
    keys = {"Supported": "supported", "Advertised": "advertised", "Link partner advertised": "partner"}
    for n, line in enumerate(artefact.lines, 1):
        if m := _BANNER.match(line):
            _close(fb, block)
            block = {"iface": m["iface"], "line": n, "link": None, "detail": None, "speed": None, "speed_printed": None,
                     "duplex": None, "autoneg": None, "supported": [], "advertised": [], "partner": []}
            listing = None
            result.lines_used += 1
            continue
        if block is None:
            continue
        if m := _MODES.match(line):
            listing = keys[m["which"]]
            block[listing] += _speeds(m["modes"])
            result.lines_used += 1
            continue
        if listing and (m := _MODES_MORE.match(line)):
            block[listing] += _speeds(m["modes"])
            result.lines_used += 1
            continue
        listing = None
        if m := _SPEED.match(line):
            block["speed"] = int(m["mbps"]) if m["mbps"] else None
            block["speed_printed"] = line.strip().removeprefix("Speed: ")
        elif m := _DUPLEX.match(line):
            block["duplex"] = m["duplex"]
        elif m := _AUTONEG.match(line):
            block["autoneg"] = m["an"] == "on"
        elif m := _LINK.match(line):
            block["link"] = m["link"] == "yes"
            block["detail"] = m["detail"]
        elif not _OTHER.match(line):
            continue
        result.lines_used += 1
    _close(fb, block)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)

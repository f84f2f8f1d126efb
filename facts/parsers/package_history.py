"""Package manager history: apt's ``/var/log/apt/history.log`` and ``/var/log/dpkg.log``.

Made by apt and dpkg on every transaction (``cat /var/log/apt/history.log``, ``zcat
/var/log/apt/history.log.*.gz``, ``grep nvidia /var/log/dpkg.log``). Sample content (real,
lyulyul/shine-cluster#50: unattended-upgrade replacing NVIDIA packages under a held driver)::

    Start-Date: 2021-06-04  06:41:09
    Commandline: /usr/bin/unattended-upgrade
    Upgrade: libnvidia-common-460:amd64 (460.73.01-0ubuntu0.20.04.1, 460.80-0ubuntu0.20.04.2)
    End-Date: 2021-06-04  06:41:09

and dpkg's one line per action (``date time action package:arch old new``, dpkg's
``log.c``)::

    2021-06-04 06:41:09 upgrade libnvidia-common-460:all 460.73.01-0ubuntu0.20.04.1 460.80-0ubuntu0.20.04.2

Facts: ``package_change`` per package of an ``Install:``/``Upgrade:``/``Downgrade:``/
``Remove:``/``Purge:`` line (or a dpkg action line): ``action``, ``package``, ``arch``,
``from_version`` / ``to_version``, ``at`` (the transaction's Start-Date, or dpkg's time),
``command`` (the transaction's ``Commandline:``), ``unattended`` (run by unattended-upgrade),
``nvidia_driver`` (the package is part of the NVIDIA driver: its kernel module, user-space
libraries, utilities, fabric manager). A list item that is not ``name:arch (versions)`` is a
parse problem. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import PackageChange  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "package_history"

# Start-Date: 2021-06-04  06:41:09
_START = re.compile(r"^\s*Start-Date: (?P<at>\d{4}-\d\d-\d\d\s+\d\d:\d\d:\d\d)\s*$")
# Commandline: /usr/bin/unattended-upgrade
_COMMAND = re.compile(r"^\s*Commandline: (?P<cmd>.*\S|[^\S\n])\s*$")
# Upgrade: libnvidia-common-460:amd64 (460.73.01-0ubuntu0.20.04.1, 460.80-0ubuntu0.20.04.2)
_ACTION = re.compile(r"^\s*(?P<action>Install|Upgrade|Downgrade|Remove|Purge|Reinstall): (?P<items>.*\S|[^\S\n])\s*$")
# libnvidia-common-460:amd64 (460.73.01-0ubuntu0.20.04.1, 460.80-0ubuntu0.20.04.2)     nvidia-dkms-460:amd64 (460.80-0ubuntu0.20.04.2, automatic)
# (a package name starts a token and a version is short: linear on a long line, the local fuzz run, seed 6)
_ITEM = re.compile(r"(?<![a-z0-9+.-])(?P<pkg>[a-z0-9][a-z0-9+.-]*)(?::(?P<arch>[a-z0-9-]+))? \((?P<vers>[^)\n]{0,300})\)")
# 2021-06-04 06:41:09 upgrade libnvidia-common-460:all 460.73.01-0ubuntu0.20.04.1 460.80-0ubuntu0.20.04.2
_DPKG = re.compile(r"^(?P<at>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (?P<action>install|upgrade|remove|purge) "
                   r"(?P<pkg>[a-z0-9][a-z0-9+.-]*):(?P<arch>[a-z0-9-]+) (?P<old>\S+) (?P<new>\S+)\s*$")
_DETECT = re.compile(r"^\s*Start-Date: \d{4}-\d\d-\d\d|^\s*(?:Upgrade|Install|Remove|Purge): [a-z0-9][a-z0-9+.-]*:[a-z0-9-]+ \("
                     r"|^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (?:install|upgrade|remove|purge) [a-z0-9][a-z0-9+.-]*:[a-z0-9-]+ ",
                     re.M)
#: line signatures for facts/classify.py
SIGNATURES = (_DETECT,)

#: names of the NVIDIA driver's packages (Ubuntu/Debian graphics-drivers and CUDA repository
#: names: nvidia-driver-535, nvidia-dkms-535, nvidia-kernel-common-535, libnvidia-compute-535,
#: nvidia-utils-535, nvidia-fabricmanager-535, cuda-drivers, linux-modules-nvidia-535-...)
_NVIDIA = re.compile(r"^(?:nvidia-(?:driver|dkms|kernel|utils|compute-utils|fabricmanager|headless|modprobe|persistenced|firmware)"
                     r"|libnvidia-|linux-(?:modules|objects|signatures)-nvidia-|cuda-drivers|xserver-xorg-video-nvidia"
                     r"|nvidia-\d{3})")


def detect(text: str) -> bool:
    if "Start-Date:" not in text and ": " not in text and " upgrade " not in text:
        return False
    return _DETECT.search(text) is not None


def _versions(action: str, vers: str) -> tuple[str | None, str | None]:
    parts = [p.strip() for p in vers.split(",") if p.strip() and p.strip() != "automatic"]
    if action in ("upgrade", "downgrade") and len(parts) >= 2:
        return parts[0], parts[1]
    if action in ("remove", "purge"):
        return (parts[0] if parts else None), None
    return None, (parts[0] if parts else None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    at: str | None = None
    command: str | None = None
    for n, line in enumerate(artefact.lines, 1):
        if (m := _START.match(line)) is not None:
            at, command = " ".join(m["at"].split()), None
        elif (m := _COMMAND.match(line)) is not None:
            command = m["cmd"]
        elif (m := _ACTION.match(line)) is not None and ":" in m["items"]:
            action = m["action"].lower()
            items = list(_ITEM.finditer(m["items"]))
            if not items:
                b.error(n, f"apt {m['action']} line without a 'package:arch (versions)' item")
                continue
            for it in items:
                old, new = _versions(action, it["vers"])
                b.add(PackageChange, n, manager="apt", action=action, package=it["pkg"], arch=it["arch"],
                      from_version=old, to_version=new, at=at, command=command,
                      unattended=bool(command) and "unattended-upgrade" in command,
                      nvidia_driver=_NVIDIA.match(it["pkg"]) is not None)
        elif (m := _DPKG.match(line)) is not None:
            action = m["action"]
            old = None if m["old"] == "<none>" else m["old"]
            new = None if m["new"] == "<none>" else m["new"]
            b.add(PackageChange, n, manager="dpkg", action=action, package=m["pkg"], arch=m["arch"],
                  from_version=old, to_version=new, at=m["at"], nvidia_driver=_NVIDIA.match(m["pkg"]) is not None)
        elif line.strip().startswith(("End-Date:", "Requested-By:")):
            pass
        else:
            continue
        result.lines_used += 1
    return result

"""NVIDIA fabric manager: its log, its journald/syslog lines and ``systemctl status`` of its unit.

Sample content: ``/var/log/fabricmanager.log`` (leptonai/gpud testdata), journald lines
(NVIDIA/gpu-operator#544, #610, NVIDIA/nvtrust#128) and the unit's failure as systemctl prints it::

    [Feb 27 2025 14:08:27] [INFO] [tid 1808] multicast group 0 is allocated.
    [Feb 27 2025 15:10:02] [ERROR] [tid 12727] detected NVSwitch non-fatal error 12028 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 61
    nv-fabricmanager[3228]: fabric manager NVIDIA GPU driver interface version 530.30.02 don't match with driver version 530.41.03. Please update with matching NVIDIA driver package.
    11月 15 14:15:47 leon-NF5468M6 nv-fabricmanager[4177]: request to query NVSwitch device information from NVSwitch driver failed with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]
    11月 15 14:15:47 leon-NF5468M6 systemd[1]: nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE
    Jan 05 14:45:28 TENCENT64 nv-fabricmanager[1120]: Successfully configured all the available NVSwitches to route GPU NVLink traffic. ...
    Job for nvidia-fabricmanager.service failed because the control process exited with error code.
         Active: failed (Result: exit-code) since Tue 2023-06-27 10:02:11 UTC; 5s ago

Messages are found anywhere in a line, so any syslog, journald or container prefix is fine; the
version-mismatch message is recognised alone too, as people quote it without its journal prefix,
even inside markdown inline code closed by a sentence's full stop (siderolabs/pkgs#720)::

    `fabric manager NVIDIA GPU driver interface version 525.85.12 don't match with driver version 530.41.03. Please update with matching NVIDIA driver package`.
Facts emitted: ``fabric_manager_version_mismatch`` (the fabric manager build and the loaded
driver differ: it refuses to start); ``fabric_manager_no_nvswitch`` (``NV_WARN_NOTHING_TO_DO``:
the NVSwitch driver reports no NVSwitch); ``nvswitch_sxid`` for the NVSwitch errors it logs
(the kernel's SXid fact kind); ``fabric_manager_error`` for any other ``[ERROR]`` line or failure
it prints, with a ``category`` (``nvlink_training``, ``nvswitch_missing``, ``multicast``,
``config``, ``gpu_nvlink_fatal``, ``other``); ``fabric_manager_status`` for the unit's and the
service's state (``configured``, ``started``, ``stopped``, ``unit_failed``, ``unit_active``,
``unit_inactive``). ``[INFO]`` and ``[WARNING]`` lines of the log are counted as read. A line
without a message after its prefix is a ParseError.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.gpu import (  # noqa: F401 - the fact classes live in facts/kinds
    FabricManagerError, FabricManagerNoNvswitch, FabricManagerStatus, FabricManagerVersionMismatch,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.kinds.kernel import NvswitchSxid

KIND = "fabric_manager_log"

# [Feb 27 2025 15:10:02] [ERROR] [tid 12727] detected NVSwitch ...   |   [Mon Jan  1 00:00:00 2024] [INFO] [tid 1234] ...
_FM_LOG = re.compile(r"^\[(?P<ts>[A-Z][a-z]{2}(?: [A-Z][a-z]{2})? +\d{1,2} [\d: ]+?)\] \[(?P<level>[A-Z]+)\] \[tid \d+\] ?(?P<msg>.*)$")
# ... nv-fabricmanager[3228]: <message>     |   ... nvidia-fabricmanager-start.sh[4756]: <message>
_JOURNAL = re.compile(r"(?:nv-fabricmanager|nvidia-fabricmanager-start\.sh)\[\d+\]: ?(?P<msg>.*)$")
# fabric manager NVIDIA GPU driver interface version 530.30.02 don't match with driver version 530.41.03.
_VERSION_MISMATCH = re.compile(r"fabric manager NVIDIA GPU driver interface version (?P<fm>\d[\w.-]*) don't match with "
                               r"driver version (?P<drv>\d[\w.-]*?)\.?(?:\s|$)")
# request to query NVSwitch device information from NVSwitch driver failed with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]
_NOTHING_TO_DO = re.compile(r"NVSwitch[^\n]*NV_WARN_NOTHING_TO_DO")
# detected NVSwitch non-fatal error 12028 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 61
_SXID = re.compile(r"detected NVSwitch (?P<nonfatal>non-)?fatal error (?P<sxid>\d+) on fid \d+ on NVSwitch pci bus id "
                   r"(?P<bus>[0-9A-Fa-f:.]+)(?: physical id \d+)?(?: port (?P<port>\d+))?")
# Successfully configured all the available NVSwitches to route GPU NVLink traffic.
# Successfully configured all the available GPUs and NVSwitches to route NVLink traffic.
_CONFIGURED = re.compile(r"Successfully configured all the available (?:GPUs and )?NVSwitches")
# systemd[1]: Started NVIDIA fabric manager service.  |  nvidia-fabricmanager-start.sh[1049]: Started "Nvidia Fabric Manager"
_STARTED = re.compile(r"Started (?:nvidia-fabricmanager\.service - )?NVIDIA fabric manager service|Started \"Nvidia Fabric Manager\"", re.I)
# systemd[1]: Stopping nvidia-fabricmanager.service - NVIDIA fabric manager service...  (NVIDIA/nvtrust#128; systemd's
#   job_start_message "Stopping %s...", the unit's name before its description since systemd 253)
_STOPPED = re.compile(r"Stop(?:ped|ping) (?:nvidia-fabricmanager\.service - )?NVIDIA fabric manager service|Stopped \"Nvidia Fabric Manager\"", re.I)
# Job for nvidia-fabricmanager.service failed because the control process exited with error code.
# systemd[1]: nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE
# systemd[1]: nvidia-fabricmanager.service: Failed with result 'exit-code'.
# systemd[1]: Failed to start NVIDIA fabric manager service.
# nvidia-fabricmanager-start.sh[4753]: "/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg" failed! Exit code: 1
_UNIT_FAILED = re.compile(r"Job for nvidia-fabricmanager\.service failed[^\n]*|nvidia-fabricmanager\.service: (?:Control process "
                          r"exited, code=\w+, status=(?P<status>\S+)|Failed with result '(?P<result>[^']+)')|Failed to start "
                          r"(?:nvidia-fabricmanager\.service - )?NVIDIA fabric manager service|nv-fabricmanager -c [^\n]*\" failed!"
                          r"[^\n]*", re.I)
# ● nvidia-fabricmanager.service - NVIDIA fabric manager service
#      Active: failed (Result: exit-code) since Tue 2023-06-27 10:02:11 UTC; 5s ago
_UNIT_HEAD = re.compile(r"nvidia-fabricmanager\.service - ")
_ACTIVE = re.compile(r"^\s*Active: (?P<state>[a-z]+)(?: \((?P<sub>[^)]*)\))?")
# a journal line of the service that reports a failure: "... failed", "error: ..."
_FAILURE_WORDS = re.compile(r"\bfail|\berror\b", re.I)
_GATE = re.compile(r"fabricmanager|fabric manager|NV_WARN_NOTHING_TO_DO|\] \[(?:INFO|ERROR|WARNING)\] \[tid \d+\]", re.I)

#: lowercased message fragments -> category of a fabric manager error (first match wins)
CATEGORIES: tuple[tuple[str, str], ...] = (
    ("not trained", "nvlink_training"), ("training failed", "nvlink_training"), ("train", "nvlink_training"),
    ("nvl fatal", "gpu_nvlink_fatal"),
    ("failed to find all the nvswitch", "nvswitch_missing"), ("nvswitch devices", "nvswitch_missing"),
    ("multicast", "multicast"),
    ("config file", "config"), ("invalid value", "config"),
)


#: literals of _GATE's branches (case folded where _GATE ignores case): a cheap first test
_LITERALS = ("abric", "ABRIC", "NV_WARN_NOTHING_TO_DO", "[tid ")
# the IMEX daemon's log shares this framing ("[Mar 03 2025 17:26:19] [INFO] [tid 38] ...") and is
# imex_log's, not fabric manager's: its banner and version line say so
# IMEX Log initializing at: 3/3/2025 17:26:19.102
# [Mar 03 2025 17:26:19] [INFO] [tid 38] IMEX version 570.00 is running with the following configuration options
_IMEX_LOG = re.compile(r"IMEX Log initializing at: |\bIMEX version \d[\w.]* is running")


def detect(head: str) -> bool:
    if not any(lit in head for lit in _LITERALS):
        return False
    if "IMEX" in head and _IMEX_LOG.search(head) is not None:
        return False
    return _GATE.search(head) is not None and any(
        p.search(head) for p in (_FM_LOG_ANY, _JOURNAL_ANY, _UNIT_FAILED, _UNIT_HEAD, _NOTHING_TO_DO, _VERSION_MISMATCH))


_FM_LOG_ANY = re.compile(_FM_LOG.pattern, re.M)
_JOURNAL_ANY = re.compile(_JOURNAL.pattern, re.M)


def _category(msg: str) -> str:
    low = msg.lower()
    return next((c for frag, c in CATEGORIES if frag in low), "other")


def _message(b: FactBuilder, n: int, msg: str, level: str | None, ts: str | None, last_stop: int = 0) -> None:
    """Facts of one fabric manager message (its unit's failure lines are the caller's); ``last_stop``: the line of the
    log's last stop of the service (0: none)."""
    if (m := _VERSION_MISMATCH.search(msg)) is not None:
        b.add(FabricManagerVersionMismatch, n, fabric_manager_version=m["fm"], driver_version=m["drv"])
    elif _NOTHING_TO_DO.search(msg):
        b.add(FabricManagerNoNvswitch, n, message=msg.strip())
    elif (m := _SXID.search(msg)) is not None:
        bus = try_pci_bus_id(m["bus"])
        if bus is None:
            b.error(n, f"fabric manager NVSwitch error with a malformed bus id {m['bus']!r}")
            return
        b.add(NvswitchSxid, n, switch=bus, sxid=int(m["sxid"]), fatal=m["nonfatal"] is None,
              link=int(m["port"]) if m["port"] else None, message=msg.strip(), timestamp=ts)
    elif _CONFIGURED.search(msg):
        b.add(FabricManagerStatus, n, status="configured", stopped_after=n < last_stop)
    elif _UNIT_FAILED.search(msg) or _STARTED.search(msg) or _STOPPED.search(msg):
        return
    elif level == "ERROR" or (level is None and _FAILURE_WORDS.search(msg)):
        b.add(FabricManagerError, n, category=_category(msg), message=msg.strip(), timestamp=ts)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    unit_block = -10
    # the service configured the fabric, then stopped further on: its last state shown is going away (session 23's
    # fragment audit: nvtrust128's journal from 'Successfully configured' to 'Stopping' read HEALTHY, 'checked: nvlink')
    last_stop = max((n for n, line in enumerate(artefact.lines, 1) if "Stop" in line and _STOPPED.search(line)), default=0)
    for n, line in enumerate(artefact.lines, 1):
        used = False
        if (m := _FM_LOG.match(line.strip())) is not None:
            if not m["msg"].strip():
                b.error(n, "fabric manager log line without a message")
                continue
            _message(b, n, m["msg"], m["level"], m["ts"].strip(), last_stop)
            used = True
        elif (m := _JOURNAL.search(line)) is not None:
            if not m["msg"].strip():
                b.error(n, "fabric manager journal line without a message")
                continue
            _message(b, n, m["msg"], None, None, last_stop)
            used = True
        elif _VERSION_MISMATCH.search(line) or _NOTHING_TO_DO.search(line):
            _message(b, n, line, None, None)
            used = True
        if (f := _UNIT_FAILED.search(line)) is not None:
            b.add(FabricManagerStatus, n, status="unit_failed", detail=f["status"] or f["result"])
            used = True
        elif _STARTED.search(line):
            b.add(FabricManagerStatus, n, status="started")
            used = True
        elif _STOPPED.search(line):
            b.add(FabricManagerStatus, n, status="stopped")
            used = True
        elif _UNIT_HEAD.search(line):
            unit_block = n  # the unit's head names it, not its state (its Active: line does): alone it checks nothing
        elif n - unit_block <= 6 and (a := _ACTIVE.match(line)) is not None:
            state = {"active": "unit_active", "failed": "unit_failed"}.get(a["state"], "unit_inactive")
            b.add(FabricManagerStatus, n, status=state, detail=a["sub"])
            used = True
        result.lines_used += used
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_GATE,)

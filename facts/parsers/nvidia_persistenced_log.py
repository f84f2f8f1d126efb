"""nvidia-persistenced's own syslog/journald lines and its systemd unit's failure.

The persistence daemon (NVIDIA/nvidia-persistenced) keeps the driver's state of each GPU
initialised while no client holds it. It logs through syslog as ``nvidia-persistenced``; when
it cannot reach the driver it logs why and exits, and systemd reports the unit failed. Its
error messages, the sample content below (nvidia-persistenced.c, ``syslog(LOG_ERR, ...)``; ``syslog_device`` prefixes
``device %04x:%02x:%02x.%x - ``) and a real journald excerpt (ollama/ollama#11932)::

    nvidia-persistenced: Failed to query NVIDIA devices. Please ensure that the NVIDIA device files (/dev/nvidia*) exist, and that user %u has read and write permissions for those files.
    nvidia-persistenced: Unable to find any NVIDIA devices
    nvidia-persistenced: Failed to open libnvidia-cfg.so.1: %s            (dlerror())
    nvidia-persistenced: Failed to load symbol %s from libnvidia-cfg.so.1: %s
    nvidia-persistenced: device 0000:3b:00.0 - failed to open.
    nvidia-persistenced failed to initialize. Check syslog for more details.      (the parent, on stderr)
    2025-08-16T00:03:03.937586-04:00 localhost systemd[1]: nvidia-persistenced.service: Control process exited, code=exited, status=1/FAILURE
    2025-08-16T00:03:03.959524-04:00 localhost systemd[1]: nvidia-persistenced.service: Failed with result 'exit-code'.
    2025-08-16T00:03:03.959639-04:00 localhost systemd[1]: Failed to start nvidia-persistenced.service - NVIDIA Persistence Daemon.
    Job for nvidia-persistenced.service failed because the control process exited with error code.   (systemctl)

Fact: ``persistenced_error`` (``event``: ``device_query_failed``, ``no_devices``,
``library_missing``, ``device_open_failed``, ``init_failed``, ``unit_failed``; the GPU's bus id
where the line names one; ``unit_failed`` too for the ``Active: failed`` line of the unit's
``systemctl status``).

A running daemon's own output is read too, and makes no fact (wild sweep A4): its notices as
nvidia-persistenced.c logs them (``Started (%d)``, ``Shutdown (%d)``, ``Verbose syslog connection
opened``, ``Now running with user ID %d and group ID %d``, ``Directory %s will not be removed on
exit``, ``PID file unlocked.``, ``PID file closed.``, ``Received signal %d``, ``device ... -
registered``) and the head and ``Active:`` line of ``systemctl status nvidia-persistenced`` (real:
bottlerocket-os/bottlerocket-core-kit#122)::

    ● nvidia-persistenced.service - NVIDIA Persistence Daemon
         Active: active (running) since Tue 2024-10-08 00:40:40 UTC; 1min 34s ago
    Oct 08 00:40:36 ip-10-194-20-228.us-west-2.compute.internal nvidia-persistenced[1450]: Started (1450)

Such a file is recognised and checks nothing (knowledge/coverage.yaml: ``covers: []``): a daemon
that runs says the driver answered it, not that a GPU is healthy. A daemon the text leaves
stopped (its last notice ``Received signal 15`` or ``Shutdown (N)``, NVIDIA/nvidia-persistenced#2;
its unit ``inactive (dead)``) is not judged, and not taken for a running one either: without a
failure line such a text is not recognised (as before: an unrecognised file keeps a bundle
inconclusive), and past the classifier's head none of its notices counts as read. Its unread lines that say in words that something failed are still text errors (a
``log: true`` kind).
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.gpu import PersistencedError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "nvidia_persistenced_log"


# nvidia-persistenced[1234]: Failed to query NVIDIA devices. Please ensure that the NVIDIA device files (/dev/nvidia*) exist, ...
# nvidia-persistenced: Unable to find any NVIDIA devices
# nvidia-persistenced: Failed to open libnvidia-cfg.so.1: libnvidia-cfg.so.1: cannot open shared object file: No such file or directory
# nvidia-persistenced: Failed to load symbol nvCfgGetPciDevices from libnvidia-cfg.so.1: ...
# nvidia-persistenced: device 0000:3b:00.0 - failed to open.
# nvidia-persistenced failed to initialize. Check syslog for more details.
_DAEMON = re.compile(
    r"nvidia-persistenced(?:\[\d+\])?: (?:(?P<query>Failed to query NVIDIA devices)|(?P<none>Unable to find any NVIDIA devices)"
    r"|(?P<lib>Failed to (?:open libnvidia-cfg|load symbol \S+ from libnvidia-cfg))"
    r"|device (?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) - (?P<open>failed to open)\b)")
_INIT = re.compile(r"nvidia-persistenced failed to initialize")
# systemd[1]: nvidia-persistenced.service: Failed with result 'exit-code'.
# systemd[1]: nvidia-persistenced.service: Control process exited, code=exited, status=1/FAILURE
# systemd[1]: Failed to start nvidia-persistenced.service - NVIDIA Persistence Daemon.
# systemd[1]: Failed to start NVIDIA Persistence Daemon.                                  (older systemd)
# systemctl's own answer to the start it asked for (what a provisioning tool's stderr carries; Ansible quotes it):
# Job for nvidia-persistenced.service failed because the control process exited with error code.
_UNIT = re.compile(
    r"nvidia-persistenced\.service: (?:Failed with result|Control process exited, code=exited, status=[1-9])"
    r"|Failed to start (?:nvidia-persistenced\.service|NVIDIA Persistence Daemon)"
    r"|Job for nvidia-persistenced\.service failed\b")
# the daemon's notices (nvidia-persistenced.c: syslog(LOG_NOTICE, "Started (%d)", pid), "Shutdown (%d)";
# SYSLOG_VERBOSE(LOG_INFO, ...) "Verbose syslog connection opened", "Now running with user ID %d and group ID %d",
# "Directory %s will not be removed on exit", "PID file unlocked.", "PID file closed."; LOG_DEBUG "Received signal %d";
# SYSLOG_DEVICE_VERBOSE(..., "registered") through nvidia-syslog-utils.c's "device %04x:%02x:%02x.%x - %s"). Real lines:
# Oct 08 00:40:36 ip-10-194-20-228.us-west-2.compute.internal nvidia-persistenced[1450]: Started (1450)      (bottlerocket-core-kit#122)
# Oct 08 00:40:36 ip-10-194-20-228.us-west-2.compute.internal nvidia-persistenced[1450]: Now running with user ID 981 and group ID 981
# Oct 08 00:40:36 ip-10-194-20-228.us-west-2.compute.internal nvidia-persistenced[1450]: Directory /var/run/nvidia-persistenced will not be removed on exit
# 2025-08-16T00:03:04.247328-04:00 localhost nvidia-persistenced: Verbose syslog connection opened            (ollama/ollama#11932)
_NOTICE = re.compile(
    r"nvidia-persistenced(?:\[\d+\])?: (?:Started \(\d+\)|Shutdown \(\d+\)|Verbose syslog connection opened"
    r"|Now running with user ID \d+ and group ID \d+|Directory /\S* will not be removed on exit|PID file (?:unlocked|closed)\."
    r"|Received signal \d+|device [0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] - registered)\s*$")
# systemctl status nvidia-persistenced: the unit's head, then its state within a few lines (systemd's own layout, the
# same for every unit; the unit's Description is NVIDIA's init/systemd/nvidia-persistenced.service.template's):
# ● nvidia-persistenced.service - NVIDIA Persistence Daemon                                 (bottlerocket-core-kit#122)
#      Active: active (running) since Tue 2024-10-08 00:40:40 UTC; 1min 34s ago
#      Active: failed (Result: exit-code) since Tue 2023-06-27 10:02:11 UTC; 5s ago   (systemd's form for any unit: the
#                                                       fabric manager's unit, facts/parsers/fabric_manager_log.py)
_UNIT_HEAD = re.compile(r"^\s*(?:[●○×*↻]\s*)?nvidia-persistenced\.service - NVIDIA Persistence Daemon\s*$", re.M)
_ACTIVE = re.compile(r"^\s*Active: (?P<state>[a-z]+)(?: \((?P<sub>[^)]*)\))?")
_ANY = re.compile(_DAEMON.pattern + "|" + _INIT.pattern + "|" + _UNIT.pattern)
_ANY_READ = re.compile(_ANY.pattern + "|" + _NOTICE.pattern + "|" + _UNIT_HEAD.pattern, re.M)


# the daemon left stopped: its notices 'Received signal 15', 'Shutdown (19176)' (NVIDIA/nvidia-persistenced#2), or its unit
# in any state but running or failed ('Active: inactive (dead)', nvidia-persistenced#2 after a reboot; activating, exited)
_STOP_NOTICE = re.compile(r"nvidia-persistenced(?:\[\d+\])?: (?:Shutdown \(\d+\)|Received signal \d+)\s*$"
                          r"|^\s*Active: (?!active \(running\)|failed\b)\S", re.M)
_START_NOTICE = re.compile(r"nvidia-persistenced(?:\[\d+\])?: Started \(\d+\)\s*$|^\s*Active: active \(running\)", re.M)


def detect(head: str) -> bool:
    if not ("nvidia-persistenced" in head or "NVIDIA Persistence Daemon" in head):
        return False
    if _ANY.search(head) is not None:
        return True  # a failure of the daemon's or its unit's
    if _ANY_READ.search(head) is None:
        return False
    # the daemon's own output without a failure: recognised only while the text leaves it running (a daemon stopped
    # after its start, NVIDIA/nvidia-persistenced#2's SIGTERM, stays an unrecognised file: never read as a running one)
    stops = [m.start() for m in _STOP_NOTICE.finditer(head)]
    return not stops or any(m.start() > stops[-1] for m in _START_NOTICE.finditer(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    unit_block = -10
    notices = 0  # the running daemon's lines read without a fact (its unit's head and state, its notices)
    stopped = False  # the capture's last word on the daemon: it was stopped (Shutdown, a signal, inactive (dead))
    for n, line in enumerate(artefact.lines, 1):
        if n - unit_block <= 6 and (a := _ACTIVE.match(line)) is not None:
            unit_block = -10
            if a["state"] == "failed":
                b.add(PersistencedError, n, event="unit_failed", message=line.strip())
                result.lines_used += 1
            else:  # active (running): the daemon runs; inactive (dead): it does not (not a fault of the driver's)
                notices += 1
                stopped = (a["state"], a["sub"]) != ("active", "running")
            continue
        if "ersistence" not in line and "persistenced" not in line:
            continue
        if _UNIT_HEAD.match(line):
            unit_block = n  # the unit's head names it; its Active: line says its state
            notices += 1
            continue
        if (m := _NOTICE.search(line)) is not None:
            notices += 1
            stopped = "Shutdown" in m[0] or "Received signal" in m[0]
            continue
        if (m := _DAEMON.search(line)) is not None:
            event = next(e for g, e in (("query", "device_query_failed"), ("none", "no_devices"), ("lib", "library_missing"),
                                        ("open", "device_open_failed")) if m[g])
            b.add(PersistencedError, n, event=event, pci_bus_id=try_pci_bus_id(m["bdf"]) if m["bdf"] else None,
                  message=line[m.start():].strip())
        elif (m := _INIT.search(line)) is not None:
            b.add(PersistencedError, n, event="init_failed", message=line[m.start():].strip())
        elif (m := _UNIT.search(line)) is not None:
            b.add(PersistencedError, n, event="unit_failed", message=line[m.start():].strip())
        else:
            continue
        result.lines_used += 1
    if not stopped:  # a daemon the capture leaves stopped is not read for a running one
        result.lines_used += notices
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
SIGNATURES = (_ANY_READ,)

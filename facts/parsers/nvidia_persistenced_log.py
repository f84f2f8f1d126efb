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
where the line names one). Its notices (``Started (N)``, ``Shutdown (N)``, ``Verbose syslog
connection opened``) are not faults and are left unread.
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
_ANY = re.compile(_DAEMON.pattern + "|" + _INIT.pattern + "|" + _UNIT.pattern)


def detect(head: str) -> bool:
    if not ("nvidia-persistenced" in head or "NVIDIA Persistence Daemon" in head):
        return False
    return _ANY.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if "ersistence" not in line and "persistenced" not in line:
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
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
SIGNATURES = (_ANY,)

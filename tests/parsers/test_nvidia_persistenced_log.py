"""nvidia-persistenced's error lines and its unit's failure (nvidia_persistenced_log): the
daemon's syslog messages as nvidia-persistenced.c prints them, a real journald excerpt
(ollama/ollama#11932), and its notices that must stay unread."""
from __future__ import annotations

import pytest

from stethoscope.facts.parsers import nvidia_persistenced_log as npd
from stethoscope.facts.parsers.base import Artefact

PREFIXES = ("", "Dec  1 10:00:01 gpu-node-07 ", "2025-08-16T00:03:04.247328-04:00 localhost ")

# (line after its syslog prefix, event, bus id)
LINES = [
    ("nvidia-persistenced[1234]: Failed to query NVIDIA devices. Please ensure that the NVIDIA device files (/dev/nvidia*) exist, and that user 0 has read and write permissions for those files.", "device_query_failed", None),
    ("nvidia-persistenced: Unable to find any NVIDIA devices", "no_devices", None),
    ("nvidia-persistenced[1234]: Failed to open libnvidia-cfg.so.1: libnvidia-cfg.so.1: cannot open shared object file: No such file or directory", "library_missing", None),
    ("nvidia-persistenced[1234]: Failed to load symbol nvCfgGetPciDevices from libnvidia-cfg.so.1: undefined symbol: nvCfgGetPciDevices", "library_missing", None),
    ("nvidia-persistenced[1234]: device 0000:3b:00.0 - failed to open.", "device_open_failed", "0000:3b:00.0"),
    ("nvidia-persistenced[1233]: nvidia-persistenced failed to initialize. Check syslog for more details.", "init_failed", None),
    ("systemd[1]: nvidia-persistenced.service: Failed with result 'exit-code'.", "unit_failed", None),
    ("systemd[1]: Failed to start NVIDIA Persistence Daemon.", "unit_failed", None),
    ("Job for nvidia-persistenced.service failed because the control process exited with error code.", "unit_failed", None),
]

# the daemon's notices (nvidia-persistenced.c's LOG_NOTICE / verbose lines; real lines of NVIDIA/nvidia-persistenced#2,
# NVIDIA/nvidia-docker#720 with Azure's 5-digit PCI domain, bottlerocket-os/bottlerocket-core-kit#122): read, no fact
NOTICES = [
    "nvidia-persistenced[19176]: Started (19176)",
    "nvidia-persistenced[19176]: Verbose syslog connection opened",
    "nvidia-persistenced[19176]: Directory /var/run/nvidia-persistenced will not be removed on exit",
    "nvidia-persistenced[1450]: Now running with user ID 981 and group ID 981",
    "nvidia-persistenced[19176]: device 0000:3d:00.0 - registered",
    "nvidia-persistenced: device 44857:00:00.0 - registered",
    "nvidia-persistenced[19175]: Received signal 15",
    "nvidia-persistenced[19176]: PID file unlocked.",
    "nvidia-persistenced[19176]: PID file closed.",
    "nvidia-persistenced[19176]: Shutdown (19176)",
]

NEAR_MISSES = [
    "nvidia-persistenced[1234]: device 0000:3b:00.0 - persistence mode enabled.",
    "systemd[1]: Started nvidia-persistenced.service - NVIDIA Persistence Daemon.",
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "event", "bus"), LINES)
def test_error_forms(prefix, line, event, bus):
    text = prefix + line + "\n"
    assert npd.detect(text)
    (f,) = npd.parse(Artefact(path="s.log", text=text, node="n1")).facts
    assert (f.event, f.pci_bus_id, f.evidence.line) == (event, bus, 1)


@pytest.mark.parametrize("line", [n for n in NOTICES if "Shutdown" not in n and "Received signal" not in n])
def test_notices_read_without_a_fact(line):
    text = "May 31 05:33:40 kino1 " + line + "\n"
    assert npd.detect(text)
    r = npd.parse(Artefact(path="s.log", text=text, node="n1"))
    assert (r.facts, r.lines_used) == ([], 1)


@pytest.mark.parametrize("line", [n for n in NOTICES if "Shutdown" in n or "Received signal" in n])
def test_a_stopped_daemon_alone_is_not_recognised(line):
    text = "May 31 05:33:40 kino1 " + line + "\n"
    assert not npd.detect(text)  # as before: unrecognised, never read for a running daemon
    r = npd.parse(Artefact(path="s.log", text=text, node="n1"))
    assert (r.facts, r.lines_used) == ([], 0)


def test_daemon_left_stopped_is_not_read_nvidia_persistenced_2():
    """The journal of NVIDIA/nvidia-persistenced#2 (systemd's SIGTERM right after the start): the text leaves the
    daemon stopped, so it is not recognised and none of its notices counts as read (never healthy on its account)."""
    text = "".join(f"May 31 05:33:40 kino1 {line}\n" for line in (
        "nvidia-persistenced[19176]: Verbose syslog connection opened",
        "nvidia-persistenced[19176]: Started (19176)",
        "nvidia-persistenced[19176]: device 0000:3d:00.0 - registered",
        "nvidia-persistenced[19175]: Received signal 15",
        "nvidia-persistenced[19175]: Shutdown (19176)"))
    assert not npd.detect(text)  # unrecognised, as before: the bundle stays inconclusive on its account
    r = npd.parse(Artefact(path="j.log", text=text, node="n1"))  # past a classifier's head: nothing read either
    assert (r.facts, r.lines_used) == ([], 0)
    running = text.rsplit("May 31", 2)[0]  # cut before the signal: a running daemon
    assert npd.detect(running)
    assert npd.parse(Artefact(path="j.log", text=running, node="n1")).lines_used == 3


@pytest.mark.parametrize("line", NEAR_MISSES)
def test_near_misses_stay_unread(line):
    text = "Dec  1 10:00:01 gpu-node-07 " + line + "\n"
    assert not npd.detect(text)
    assert npd.parse(Artefact(path="s.log", text=text, node="n1")).facts == []


def test_real_journal_excerpt_ollama_11932():
    text = ("2025-08-16T00:03:03.937586-04:00 localhost systemd[1]: nvidia-persistenced.service: Control process exited, code=exited, status=1/FAILURE\n"
            "2025-08-16T00:03:03.959524-04:00 localhost systemd[1]: nvidia-persistenced.service: Failed with result 'exit-code'.\n"
            "2025-08-16T00:03:03.959639-04:00 localhost systemd[1]: Failed to start nvidia-persistenced.service - NVIDIA Persistence Daemon.\n")
    assert npd.detect(text)
    r = npd.parse(Artefact(path="j.log", text=text, node="n1"))
    assert [(f.event, f.evidence.line) for f in r.facts] == [("unit_failed", 1), ("unit_failed", 2), ("unit_failed", 3)]


def test_real_ansible_start_failure_fgci_ansible_role_cuda_20():
    """systemctl's answer, quoted by Ansible's service module (fgci-org/ansible-role-cuda#20, the CI's output)."""
    text = open("fixtures/artefacts/nvidia_persistenced_log/ansiblerolecuda20_systemctl_job_failed.log").read()
    assert npd.detect(text)
    r = npd.parse(Artefact(path="a.log", text=text, node="n1"))
    assert [(f.event, f.evidence.line) for f in r.facts] == [("unit_failed", 1), ("unit_failed", 3), ("unit_failed", 5)]


def test_real_systemctl_status_running_bottlerocket_core_kit_122():
    """A running daemon (wild sweep A4): the unit's head, its Active: line and the journal's notices are read, no fact."""
    text = open("fixtures/artefacts/nvidia_persistenced_log/bottlerocketcorekit122_systemctl_status_running.txt").read()
    assert npd.detect(text)
    r = npd.parse(Artefact(path="s.txt", text=text, node="n1"))
    assert r.facts == [] and r.lines_used == 6  # the head, its Active: line, the daemon's 4 notices (systemd's Starting: not its)


def test_systemctl_status_failed_unit():
    """The unit's head (bottlerocket-core-kit#122) with systemd's Active: line of a failed unit (the same form for any
    unit: the fabric manager's, gpu-operator's thread in facts/parsers/fabric_manager_log.py)."""
    text = ("● nvidia-persistenced.service - NVIDIA Persistence Daemon\n"
            "     Active: failed (Result: exit-code) since Tue 2023-06-27 10:02:11 UTC; 5s ago\n")
    assert npd.detect(text)
    (f,) = npd.parse(Artefact(path="s.txt", text=text, node="n1")).facts
    assert (f.event, f.evidence.line) == ("unit_failed", 2)


@pytest.mark.parametrize("state", ["inactive (dead)", "activating (start)"])
def test_a_unit_not_running_is_not_recognised(state):
    """nvidia-persistenced#2's 'Active: inactive (dead)' after a reboot under the unit's head (bottlerocket-core-kit#122's
    form): a daemon that does not run is not read for one that does; the file stays unrecognised, as before."""
    text = f"● nvidia-persistenced.service - NVIDIA Persistence Daemon\n   Active: {state}\n"
    assert not npd.detect(text)
    assert npd.parse(Artefact(path="s.txt", text=text, node="n1")).lines_used == 0

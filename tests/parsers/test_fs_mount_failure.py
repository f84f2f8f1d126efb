"""A network file system failing to mount (fs_mount_failure): Lustre's mount helper line, util-linux mount's error
under a client unit's tag (every util-linux wording), systemd's failure of the client unit or a remote mount unit,
real lines (ThinkParQ/beegfs#78, whamcloud/integrated-manager-for-lustre#230), and near misses that stay unread."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import fs_mount_failure as fm
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/fs_mount_failure"


def _parse(text: str, normalise: bool = False):
    a = Artefact(path="j.txt", text=text, node="n1")
    if normalise:
        a.normalise(plain=False)
    return fm.parse(a)


# (line, filesystem, event, mountpoint, error, unit)
LINES = [
    ("mount.lustre: mount /dev/sdb at /mnt/testfs-OST0001 failed: Cannot send after transport endpoint shutdown",
     "lustre", "mount_failed", "/mnt/testfs-OST0001", "Cannot send after transport endpoint shutdown", None),
    ("mount.lustre: mount 10.0.0.1@o2ib:/scratch at /mnt/scratch failed: No such file or directory",
     "lustre", "mount_failed", "/mnt/scratch", "No such file or directory", None),
    ("Sep 17 15:08:01 gnode01 beegfs-client[780929]: mount: /mnt/beegfs: mount(2) system call failed: Operation canceled.",
     "beegfs", "mount_failed", "/mnt/beegfs", "Operation canceled", None),
    ("Sep 17 15:08:01 gnode01 beegfs-client[780929]: mount: /mnt/beegfs: mount system call failed: Operation canceled.",
     "beegfs", "mount_failed", "/mnt/beegfs", "Operation canceled", None),  # util-linux 2.40
    ("Sep 17 15:08:01 gnode01 beegfs-client[780929]: mount: /mnt/beegfs: fsconfig() failed: Operation canceled.",
     "beegfs", "mount_failed", "/mnt/beegfs", "Operation canceled", None),  # util-linux 2.41+
    ("Sep 17 15:08:01 gnode01 systemd[1]: Failed to start beegfs-client.service - Start BeeGFS Client.",
     "beegfs", "unit_failed", None, None, "beegfs-client.service"),
    ("Sep 17 15:08:01 gnode01 systemd[1]: Failed to start Start BeeGFS Client.", "beegfs", "unit_failed", None, None, None),
    ("Dec  1 10:00:01 gpu07 systemd[1]: Failed to mount mnt-lustre.mount - /mnt/lustre.",
     "lustre", "unit_failed", "/mnt/lustre", None, "mnt-lustre.mount"),
    ("Dec  1 10:00:01 gpu07 systemd[1]: Dependency failed for remote-fs.target - Remote File Systems.",
     "network", "unit_failed", None, None, "remote-fs.target"),
]

NEAR_MISSES = [
    "mount: /mnt/ext: mount(2) system call failed: Structure needs cleaning.",  # a local btrfs by hand: no file system named
    "Dec  1 10:00:01 stor01 systemd[1]: Failed to start beegfs-storage.service - BeeGFS Storage Server.",  # a server
    "Dec  1 10:00:01 nfs01 systemd[1]: Failed to start nfs-server.service - NFS server and services.",
    "Dec  1 10:00:01 gpu07 systemd[1]: Failed to start docker.service - Docker Application Container Engine.",
    "Dec  1 10:00:01 gpu07 systemd[1]: Failed to mount boot-efi.mount - /boot/efi.",
    "Sep 17 15:12:54 gnode01 systemd[1]: Started beegfs-client.service - Start BeeGFS Client.",
    "Sep 17 15:08:01 gnode01 beegfs-client[780929]:        dmesg(1) may have more information after failed mount system call.",
]


@pytest.mark.parametrize(("line", "fs", "event", "mountpoint", "error", "unit"), LINES)
def test_forms(line, fs, event, mountpoint, error, unit):
    text = line + "\n"
    assert fm.detect(text)
    (f,) = _parse(text).facts
    assert (f.filesystem, f.event, f.mountpoint, f.error, f.unit) == (fs, event, mountpoint, error, unit)


@pytest.mark.parametrize("line", NEAR_MISSES)
def test_near_misses_stay_unread(line):
    assert _parse(line + "\n").facts == []


def test_real_beegfs_78_journal_the_unit_read_with_its_mount_error():
    # the unit's "Failed to start" follows from the mount error just read: one fact, on the journal's host,
    # also when the journald prefix is off the normalised text (the tag is read from the line as written)
    text = (FIX / "beegfs78_client_unit_journal.txt").read_text()
    for normalise in (False, True):
        (f,) = _parse(text, normalise).facts
        assert (f.node, f.filesystem, f.mountpoint, f.error, f.timestamp, f.evidence.line) == (
            "gnode01", "beegfs", "/mnt/beegfs", "Operation canceled", "Sep 17 15:08:01", 6)


def test_real_iml_230_mount_lustre():
    text = (FIX / "iml230_mount_lustre_eshutdown.txt").read_text()
    assert fm.detect(text)
    (f,) = _parse(text).facts
    assert (f.filesystem, f.source, f.mountpoint) == ("lustre", "/dev/sdb", "/mnt/testfs-OST0001")


def test_bad_input_gives_no_traceback():
    assert _parse("mount.lustre: mount  at  failed: \n\x00Failed to mount \n").errors == []

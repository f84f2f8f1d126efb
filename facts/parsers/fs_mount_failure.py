"""A network file system that failed to mount on a node: the mount helper's error, util-linux mount's
error logged by a file-system client's unit, and systemd's failure of that unit or of a remote mount unit.

What an operator pastes when a node came up without its shared file system (``systemctl status`` /
``journalctl -u beegfs-client``, the console of ``mount -t lustre``): the job then finds its data and
checkpoint directories missing, or writes them to the local disk under the empty mount point. The forms,
from the upstream sources, with real sample lines beside them::

    Lustre utils/mount_lustre.c (1.6 ... 2.16): fprintf(stderr, "%s: mount %s at %s failed: %s\\n", progname,
      mop.mo_usource, mop.mo_target, strerror(errno))
      mount.lustre: mount /dev/sdb at /mnt/testfs-OST0001 failed: Cannot send after transport endpoint shutdown
                                                              (whamcloud/integrated-manager-for-lustre#230, LU-9838)
    util-linux sys-utils/mount.c + libmount context_mount.c: "%s: %s." with "mount(2) system call failed: %m"
      (2.33-2.39), "mount system call failed: %m" (2.40), "fsconfig() failed: %m" / "fsmount() failed: %m" /
      "move_mount() failed: %m" (2.41+, the new mount API); a unit's script logs it under its own tag:
      Sep 17 15:08:01 gnode01 beegfs-client[780929]: mount: /mnt/beegfs: mount(2) system call failed: Operation canceled.
                                                              (ThinkParQ/beegfs#78)
    systemd src/core/job.c job_emit_done_message: "Failed to start %s - %s." (unit name and description, 252+),
      "Failed to start %s." (the description, before); mount units "Failed to mount %s[ - %s]."; a _netdev mount's
      failure stops remote-fs.target: "Dependency failed for [remote-fs.target - ]Remote File Systems."
      Sep 17 15:08:01 gnode01 systemd[1]: Failed to start beegfs-client.service - Start BeeGFS Client.   (ThinkParQ/beegfs#78)

A util-linux line is read only where its tag names a network file system's client (``beegfs-client[N]``,
``mount.nfs``, ...); a systemd line only where its unit (or the description before 252) names one, or for
remote-fs.target: a local disk's mount failure is not this reader's (the catch-all keeps it). The file
system is the one named; where only remote-fs.target says a remote mount failed it is ``network``.

Fact: ``shared_fs_mount_failed`` (event ``mount_failed`` with the mount point, source and strerror, or
``unit_failed``), on the node the syslog line names. The lines that only follow a failure (``dmesg(1) may
have more information after failed mount system call.``, ``Main process exited, code=exited, status=32``,
``Failed with result 'exit-code'``, systemctl's ``Job for ... failed``) are left unread; systemd's failure of the
unit (or of remote-fs.target) after a mount error of the same file system and node is read with that error.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import SharedFsMountFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.lines import MONTH
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "fs_mount_failure"

# Sep 17 15:08:01 gnode01 beegfs-client[780929]: ...      /   2025-09-17T15:08:01+0200 gnode01 systemd[1]: ...
_SYSLOG = re.compile(r"^\s*(?P<ts>" + MONTH + r" +\d{1,2} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT[\d:.]+(?:[+-]\d\d:?\d\d|Z)?)"
                     r" (?P<host>[A-Za-z0-9][\w.-]{0,63}) (?P<tag>[\w.@-]{1,64})(?:\[\d+\])?: ")
#: the client-side names of the network file systems (a unit, a syslog tag, a mount helper): the file system
_FS_WORD = re.compile(r"(?i)(?P<w>beegfs|lustre|lnet|nfs4?|ceph|gpfs|mmfs|weka|cifs|smb3?)")
_FS_OF = {"lnet": "lustre", "nfs4": "nfs", "mmfs": "gpfs", "smb": "cifs", "smb3": "cifs"}
#: units of a file system's servers (beegfs-mgmtd/-meta/-storage, nfs-server, ceph-mon/-osd/-mds, ...): not a client's mount
_SERVER_UNIT = re.compile(r"(?i)server|mgmtd|meta\b|storage|\bmon\b|-mon@|osd|\bmds|\bmgr\b|ganesha")

# mount.lustre: mount /dev/sdb at /mnt/testfs-OST0001 failed: Cannot send after transport endpoint shutdown
# mount.lustre: mount 10.0.0.1@o2ib:/scratch at /mnt/scratch failed: No such file or directory
_HELPER = re.compile(r"\bmount\.(?P<fs>lustre|beegfs|nfs4?|ceph|cifs|smb3): mount (?P<src>\S{1,512}) at (?P<dir>/\S{0,512})"
                     r" failed: (?P<err>[^\n*]{1,200}?)[.*\s]*$")
# mount: /mnt/beegfs: mount(2) system call failed: Operation canceled.
# mount: /mnt/x: mount system call failed: File exists.            (util-linux 2.40)
# mount: /mnt/x: fsconfig() failed: File exists.                   (util-linux 2.41+)
_UTIL = re.compile(r"\bmount: (?P<dir>/[^\s:]{0,512}): (?:mount\(2\) system call|mount system call|(?:fsconfig|fsopen|fsmount"
                   r"|move_mount)\(\)) failed: (?P<err>[^\n]{1,200}?)\.?\s*$")
# systemd[1]: Failed to start beegfs-client.service - Start BeeGFS Client.
# systemd[1]: Failed to start Start BeeGFS Client.                            (systemd < 252: the description)
# systemd[1]: Failed to mount mnt-lustre.mount - /mnt/lustre.   /   Failed to mount /mnt/lustre.
_UNIT = re.compile(r"\bFailed to (?P<verb>start|mount) (?P<what>[^\n]{1,300}?)\.?\s*$")
# systemd[1]: Dependency failed for remote-fs.target - Remote File Systems.   /   Dependency failed for Remote File Systems.
_REMOTE_FS = re.compile(r"\bDependency failed for (?:remote-fs\.target - )?Remote File Systems\b")
#: any line of these forms (their literal parts; _line_fact decides whether it names a network file system)
_ANY = re.compile(r"\bmount\.\w{3,6}: mount \S{1,512} at /|\bmount: /[^\s:]{0,512}: (?:mount\(2\) system call|mount system call|(?:fsconfig|fsopen|fsmount|move_mount)\(\)) failed: |\bFailed to (?:start|mount) |\bDependency failed for (?:remote-fs\.target - )?Remote File Systems")


def _fs(word: str | None) -> str | None:
    if (m := _FS_WORD.search(word or "")) is None:
        return None
    w = m["w"].lower()
    return _FS_OF.get(w, w)


def _systemd_fs(verb: str, what: str) -> tuple[str, str | None] | None:
    """(file system, unit) of a systemd failure line of a network file system's client, else None."""
    unit, _, desc = what.partition(" - ")
    unit = unit if re.fullmatch(r"[\w@.\\-]{1,256}\.(?:service|mount|target)", unit) else None
    named = unit or what
    if _SERVER_UNIT.search(named):
        return None
    fs = _fs(named) or (_fs(desc) if unit else None)
    if fs is None and verb == "start" and unit is None:
        return None
    return (fs, unit) if fs is not None else None


def detect(head: str) -> bool:
    if not ("mount" in head or "Failed to start" in head or "Remote File Systems" in head):
        return False
    for line in head.splitlines():
        if "mount" in line or "Failed to " in line or "Remote File" in line:
            if _line_fact(line, line) is not None:
                return True
            # the syslog/journald prefix (with the unit's tag) may be off the text asked (facts/lines.py): parse() reads it
            if "failed: " in line and _UTIL.search(line) is not None and _FS_WORD.search(head) is not None:
                return True
    return False


def _line_fact(line: str, raw: str) -> dict | None:
    """The fields of a shared_fs_mount_failed of one line (``raw``: the line as written, with its syslog prefix), else None."""
    sl = _SYSLOG.match(raw)
    tag = sl["tag"] if sl else None
    if "mount." in line and (m := _HELPER.search(line)) is not None:
        return {"filesystem": _FS_OF.get(m["fs"], m["fs"]), "event": "mount_failed", "mountpoint": m["dir"],
                "source": m["src"], "error": m["err"].strip(), "message": line[m.start():].strip(" *")}
    if "failed: " in line and (m := _UTIL.search(line)) is not None:
        fs = _fs(tag) if tag and tag not in ("kernel", "systemd", "mount") else None
        if fs is None:
            return None  # a mount of a disk, or of a file system the line does not name
        return {"filesystem": fs, "event": "mount_failed", "mountpoint": m["dir"], "error": m["err"].strip(),
                "message": line[m.start():].strip()}
    if "Failed to " in line and (m := _UNIT.search(line)) is not None:
        if (got := _systemd_fs(m["verb"], m["what"])) is None:
            return None
        fs, unit = got
        mountpoint = None
        if m["verb"] == "mount":
            desc = m["what"].partition(" - ")[2] if unit else m["what"]
            mountpoint = desc if desc.startswith("/") and " " not in desc else None
        return {"filesystem": fs, "event": "unit_failed", "unit": unit, "mountpoint": mountpoint,
                "message": line[m.start():].strip()}
    if "Remote File Systems" in line and (m := _REMOTE_FS.search(line)) is not None:
        return {"filesystem": "network", "event": "unit_failed", "unit": "remote-fs.target", "message": line[m.start():].strip()}
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    said: set[tuple[str, str]] = set()  # (node, file system) whose mount error was read: its unit's failure follows from it
    for n, line in enumerate(artefact.lines, 1):
        if "mount" not in line and "Failed to " not in line and "Remote File" not in line:
            continue
        raw = artefact.raw_line(n)
        if (fields := _line_fact(line, raw)) is None:
            continue
        sl = _SYSLOG.match(raw)
        node = artefact.node_for(sl["host"] if sl else None)
        result.lines_used += 1
        if fields["event"] == "unit_failed" and ((node, fields["filesystem"]) in said or (fields["filesystem"] == "network" and any(
                k[0] == node for k in said))):
            continue  # systemd's line on the unit whose mount error was read above: the same failure, read with it
        if fields["event"] == "mount_failed":
            said.add((node, fields["filesystem"]))
        b.add(SharedFsMountFailed, n, node=node, timestamp=sl["ts"] if sl else None, **fields)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
SIGNATURES = (_ANY,)

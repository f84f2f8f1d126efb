"""A program's EIO joined with its node's storage kernel lines (rules io_error_on_failing_disk,
io_error_on_failing_shared_fs): the kernel's finding names the fault and ranks first, the program's error
is its symptom; alone the EIO is io_error_on_file's warning; on a device file it is no storage finding."""
from __future__ import annotations

from pathlib import Path

import small_bundle

# pytorch/pytorch#48580's last line; verilog-ethernet#146's EXT4 line; linux-surface#1494's NFS line (all verbatim)
EIO = "    self.file_like.close()\nOSError: [Errno 5] Input/output error\n"
EXT4 = ("[ 7580.888186] EXT4-fs error (device sda2): __ext4_find_entry:1612: inode #187700: comm cleanup: "
        "reading directory lblock 0\n")
NFS = "[32495.562824] nfs: server thinkcentre not responding, timed out\n"


def _report(tmp_path: Path, files: dict[str, dict[str, str]], ruleset):
    return small_bundle.diagnose(tmp_path, {f"{node}/{name}": text for node, named in files.items()
                                            for name, text in named.items()}, ruleset)


def test_the_file_systems_error_ranks_first_and_explains_the_eio(tmp_path, ruleset):
    rep = _report(tmp_path, {"n1": {"train.log": EIO, "dmesg.log": EXT4}}, ruleset)
    first, *rest = rep.findings
    assert (first.rule, first.role) == ("filesystem_error", "root_cause")
    eio = [f for f in rest if f.rule == "io_error_on_failing_disk"]
    assert eio and eio[0].role == "cascade" and eio[0].explained_by == [first.rank]
    assert not [f for f in rep.findings if f.rule in ("io_error_on_file", "unexplained_error")]


def test_the_nfs_timeout_ranks_first_with_the_eio_as_its_evidence(tmp_path, ruleset):
    rep = _report(tmp_path, {"n1": {"train.log": EIO, "dmesg.log": NFS}}, ruleset)
    assert rep.findings[0].rule == "nfs_server_not_responding"
    assert any("Input/output error" in e.text for f in rep.findings for e in f.evidence)
    assert not [f for f in rep.findings if f.rule in ("io_error_on_file", "unexplained_error")]


def test_eio_alone_is_a_storage_warning(tmp_path, ruleset):
    rep = _report(tmp_path, {"n1": {"train.log": EIO}}, ruleset)
    assert [(f.rule, f.component, f.severity) for f in rep.findings] == [("io_error_on_file", "storage", "warning")]


def test_eio_on_the_gpu_device_file_is_no_storage_finding_and_not_healthy(tmp_path, ruleset):
    rep = _report(tmp_path, {"n1": {"train.log": "OSError: [Errno 5] Input/output error: '/dev/nvidia0'\n",
                                    "dmesg.log": NFS}}, ruleset)
    assert not [f for f in rep.findings if f.rule.startswith("io_error_on")]
    assert rep.verdict != "healthy"

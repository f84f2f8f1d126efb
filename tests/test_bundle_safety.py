"""Hostile and odd bundles: nothing escapes, nothing is followed, nothing is dropped silently.

Archives are built in tmp_path with tarfile/zipfile around real captures from fixtures/.
"""
import gzip
import io
import os
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stethoscope.cli.main import app
from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.facts import bundle as B
from stethoscope.facts.bundle import BundleError, artefacts, node_from_content, read_bundle

ROOT = Path(__file__).resolve().parent.parent
ART = ROOT / "fixtures" / "artefacts"
BUNDLES = ROOT / "fixtures" / "bundles"

DMESG = (ART / "kernel_log" / "dmesg_xid79_sxid.log").read_bytes()
NCCL = (ART / "nccl_log" / "allreduce_healthy_g2.nccl.log").read_bytes()
SYSLOG = (ART / "kernel_log" / "syslog_xid79_fell_off_bus.log").read_bytes()
SYSLOG_13 = (ART / "kernel_log" / "syslog_xid13_stamped.log").read_bytes()
PROMPT = (ART / "nvidia_smi_q" / "mixed_terminal_session.txt").read_bytes()
SMI_Q = (ART / "nvidia_smi_q" / "nvidia-smi-q.txt").read_bytes()

runner = CliRunner()


def _tar_add(tar: tarfile.TarFile, name: str, data: bytes = b"", **attrs) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for k, v in attrs.items():
        setattr(info, k, v)
    tar.addfile(info, io.BytesIO(data) if info.isfile() else None)


def _skipped(report) -> dict[str, str]:
    return {s.path: s.reason for s in report.coverage.skipped}


def _cli(*args: str):
    return runner.invoke(app, list(args))


def _assert_bad_input(result) -> None:
    """Exit 3 with one line on stderr, no traceback, nothing on stdout."""
    assert result.exit_code == 3, (result.exit_code, result.output, result.exception)
    assert result.stdout == ""
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("steth: "), result.stderr


# --- paths that could escape ---------------------------------------------------------------


@pytest.mark.parametrize("evil", ["../escape.log", "a/../../escape.log", "/tmp/steth-abs-escape.log", "C:/escape.log", "..\\escape.log"])
def test_tar_unsafe_names_are_skipped_not_written(tmp_path, evil):
    work = tmp_path / "work"
    work.mkdir()
    tgz = work / "evil.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        _tar_add(tar, "node1/dmesg.log", DMESG)
        _tar_add(tar, "node2/nccl.log", NCCL)
        _tar_add(tar, evil, DMESG)
    before = set(tmp_path.rglob("*"))
    report = diagnose_bundle(tgz)
    assert set(tmp_path.rglob("*")) == before, "nothing is written anywhere"
    assert not Path("/tmp/steth-abs-escape.log").exists()
    skipped = _skipped(report)
    assert evil in skipped and "unsafe path" in skipped[evil]
    assert [c.path for c in report.coverage.files] == ["node1/dmesg.log", "node2/nccl.log"]
    assert evil not in report.coverage.unrecognised


@pytest.mark.parametrize("evil", ["../escape.log", "/etc/steth-abs.log", "x/../../escape.log"])
def test_zip_unsafe_names_are_skipped(tmp_path, evil):
    zpath = tmp_path / "evil.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("node1/dmesg.log", DMESG)
        zf.writestr("node2/nccl.log", NCCL)
        zf.writestr(zipfile.ZipInfo(evil), DMESG)
    report = diagnose_bundle(zpath)
    skipped = _skipped(report)
    assert evil in skipped and "unsafe path" in skipped[evil]
    assert [c.path for c in report.coverage.files] == ["node1/dmesg.log", "node2/nccl.log"]
    assert not (tmp_path.parent / "escape.log").exists()


# --- links and special members --------------------------------------------------------------


def test_tar_symlink_and_hardlink_members_are_listed_not_followed(tmp_path):
    tgz = tmp_path / "links.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        _tar_add(tar, "node1/dmesg.log", DMESG)
        _tar_add(tar, "node2/nccl.log", NCCL)
        _tar_add(tar, "node1/passwd", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        _tar_add(tar, "node1/up.log", type=tarfile.SYMTYPE, linkname="../../outside.log")
        _tar_add(tar, "node1/hard.log", type=tarfile.LNKTYPE, linkname="node1/dmesg.log")
    report = diagnose_bundle(tgz)
    skipped = _skipped(report)
    assert "not followed" in skipped["node1/passwd"] and "/etc/passwd" in skipped["node1/passwd"]
    assert "not followed" in skipped["node1/up.log"]
    assert "not followed" in skipped["node1/hard.log"]
    assert [c.path for c in report.coverage.files] == ["node1/dmesg.log", "node2/nccl.log"]
    assert all("root:" not in e.text for f in report.findings for e in f.evidence)


def test_tar_device_and_fifo_members_are_listed(tmp_path):
    tgz = tmp_path / "dev.tar"
    with tarfile.open(tgz, "w") as tar:
        _tar_add(tar, "node1/dmesg.log", DMESG)
        _tar_add(tar, "node2/nccl.log", NCCL)
        _tar_add(tar, "node1/fifo", type=tarfile.FIFOTYPE)
        _tar_add(tar, "node1/sda", type=tarfile.BLKTYPE, devmajor=8, devminor=0)
        _tar_add(tar, "node1/null", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
    skipped = _skipped(diagnose_bundle(tgz))
    for name in ("node1/fifo", "node1/sda", "node1/null"):
        assert skipped[name] == "not a regular file"


def test_zip_symlink_member_is_listed_not_followed(tmp_path):
    zpath = tmp_path / "links.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("node1/dmesg.log", DMESG)
        zf.writestr("node2/nccl.log", NCCL)
        link = zipfile.ZipInfo("node1/passwd")
        link.create_system = 3
        link.external_attr = (0o120777) << 16  # S_IFLNK
        zf.writestr(link, "/etc/passwd")
        fifo = zipfile.ZipInfo("node1/fifo")
        fifo.create_system = 3
        fifo.external_attr = (0o010644) << 16  # S_IFIFO
        zf.writestr(fifo, "")
    report = diagnose_bundle(zpath)
    skipped = _skipped(report)
    assert "not followed" in skipped["node1/passwd"]
    assert skipped["node1/fifo"] == "not a regular file"
    assert [c.path for c in report.coverage.files] == ["node1/dmesg.log", "node2/nccl.log"]


def test_zip_member_with_permission_bits_only_is_read(tmp_path):
    # zipfile.writestr(name, ...) stores mode 0o600 without a file type: still a plain file
    zpath = tmp_path / "plain.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("node1/dmesg.log", DMESG)
    assert (zipfile.ZipFile(zpath).infolist()[0].external_attr >> 16) == 0o600
    report = diagnose_bundle(zpath)
    assert [c.path for c in report.coverage.files] == ["dmesg.log"]
    assert report.verdict == "faulty"


def test_zip_encrypted_member_is_listed(tmp_path):
    zpath = tmp_path / "enc.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("node1/dmesg.log", DMESG)
        zf.writestr("node2/nccl.log", NCCL)
        zf.writestr("node1/secret.log", b"secret")
    data = bytearray(zpath.read_bytes())
    # set the "encrypted" flag bit of node1/secret.log in its local and central headers
    local = data.find(b"node1/secret.log")
    central = data.find(b"node1/secret.log", local + 1)
    assert data[local - 30 : local - 26] == b"PK\x03\x04" and data[central - 46 : central - 42] == b"PK\x01\x02"
    data[local - 30 + 6] |= 1
    data[central - 46 + 8] |= 1
    zpath.write_bytes(bytes(data))
    report = diagnose_bundle(zpath)
    assert "encrypted" in _skipped(report)["node1/secret.log"]
    assert [c.path for c in report.coverage.files] == ["node1/dmesg.log", "node2/nccl.log"]


def test_folder_symlink_outside_is_refused_inside_is_read(tmp_path):
    outside = tmp_path / "secret.log"
    outside.write_bytes(SYSLOG)
    bundle = tmp_path / "bundle"
    (bundle / "node1").mkdir(parents=True)
    (bundle / "node1" / "dmesg.log").write_bytes(DMESG)
    (bundle / "node1" / "out.log").symlink_to(outside)
    (bundle / "node1" / "in.log").symlink_to(bundle / "node1" / "dmesg.log")
    (bundle / "elsewhere").symlink_to(tmp_path, target_is_directory=True)
    report = diagnose_bundle(bundle)
    skipped = _skipped(report)
    assert skipped["node1/out.log"] == "link points outside the bundle"
    assert skipped["elsewhere"] == "linked folder not followed"
    read = {c.path for c in report.coverage.files}
    assert read == {"node1/dmesg.log", "node1/in.log"}
    assert all(e.path != "node1/out.log" for f in report.findings for e in f.evidence)


def test_folder_fifo_is_listed_not_opened(tmp_path):
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "dmesg.log").write_bytes(DMESG)
    os.mkfifo(bundle / "pipe")  # opening it would block forever
    report = diagnose_bundle(bundle)
    assert _skipped(report)["pipe"] == "not a regular file"


def test_fifo_given_as_the_bundle_is_bad_input(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(BundleError, match="not a regular file"):
        read_bundle(fifo)
    _assert_bad_input(_cli("diagnose", "--from-logs", str(fifo)))


# --- limits ---------------------------------------------------------------------------------


def test_gzip_bomb_member_is_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(B, "MAX_FILE_BYTES", 64 * 1024)
    bomb = gzip.compress(b"\0" * (1024 * 1024))
    assert len(bomb) < 64 * 1024
    tgz = tmp_path / "bomb.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        _tar_add(tar, "node1/dmesg.log", DMESG)
        _tar_add(tar, "node2/nccl.log", NCCL)
        _tar_add(tar, "node1/big.log.gz", bomb)
    report = diagnose_bundle(tgz)
    assert "expands to more than" in _skipped(report)["node1/big.log.gz"]
    assert [c.path for c in report.coverage.files] == ["node1/dmesg.log", "node2/nccl.log"]


def test_gzip_member_is_read_and_corrupt_one_is_listed(tmp_path):
    bundle = tmp_path / "bundle"
    (bundle / "node1").mkdir(parents=True)
    (bundle / "node1" / "dmesg.log.gz").write_bytes(gzip.compress(DMESG))
    bad = gzip.compress(SYSLOG)
    (bundle / "node1" / "syslog.gz").write_bytes(bad[:10] + b"\xff" * 40 + bad[50:])
    report = diagnose_bundle(bundle)
    assert [c.path for c in report.coverage.files] == ["node1/dmesg.log.gz"]
    assert report.verdict == "faulty"
    assert "corrupt gzip member" in _skipped(report)["node1/syslog.gz"]


def test_zip_member_with_bad_crc_is_listed_and_the_others_read(tmp_path):
    """zipfile checks a member's CRC only once its last byte is read: the error comes in the
    middle of decoding it (the long fuzz run found it through diagnose, not at open)."""
    path = tmp_path / "bundle.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("node1/dmesg.log", DMESG)
        z.writestr("node1/syslog", SYSLOG)
    data = bytearray(path.read_bytes())
    at = data.index(SYSLOG[:64]) + 200  # a byte inside the stored syslog member
    data[at] ^= 0x20
    path.write_bytes(bytes(data))
    report = diagnose_bundle(path)
    assert report.verdict == "faulty"
    assert [c.path for c in report.coverage.files] == ["dmesg.log"]  # the one top folder is the node
    assert "Bad CRC-32" in _skipped(report)["syslog"]


def test_large_member_is_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(B, "MAX_FILE_BYTES", 1024)
    tgz = tmp_path / "big.tar"
    with tarfile.open(tgz, "w") as tar:
        _tar_add(tar, "node1/small.log", DMESG[:500])
        _tar_add(tar, "node2/small.log", DMESG[:500])
        _tar_add(tar, "node1/nccl.log", NCCL)
    assert "larger than" in _skipped(diagnose_bundle(tgz))["node1/nccl.log"]


@pytest.mark.parametrize("kind", ["folder", "tgz", "zip", "gzip_members"])
def test_total_size_limit_is_bad_input(tmp_path, monkeypatch, kind):
    monkeypatch.setattr(B, "MAX_TOTAL_BYTES", 1000)
    bundle = tmp_path / "bundle"
    (bundle / "node1").mkdir(parents=True)
    if kind == "gzip_members":  # small on disk, too big once decompressed
        (bundle / "node1" / "a.log.gz").write_bytes(gzip.compress(DMESG))
        assert len(gzip.compress(DMESG)) < 1000 < len(DMESG)
    else:
        (bundle / "node1" / "dmesg.log").write_bytes(DMESG)
        (bundle / "node1" / "nccl.log").write_bytes(NCCL)
    target = bundle
    if kind == "tgz":
        target = tmp_path / "b.tgz"
        with tarfile.open(target, "w:gz") as tar:
            tar.add(bundle, arcname="bundle")
    elif kind == "zip":
        target = tmp_path / "b.zip"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
            for p in sorted(bundle.rglob("*")):
                zf.write(p, p.relative_to(tmp_path).as_posix())
    with pytest.raises(BundleError, match="bundle expands to more than"):
        read_bundle(target)
    _assert_bad_input(_cli("diagnose", "--from-logs", str(target)))


@pytest.mark.parametrize("kind", ["folder", "tar", "zip"])
def test_too_many_members_is_bad_input(tmp_path, monkeypatch, kind):
    monkeypatch.setattr(B, "MAX_MEMBERS", 5)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    for i in range(6):
        (bundle / f"f{i}.log").write_bytes(DMESG[:100])
    target = bundle
    if kind == "tar":
        target = tmp_path / "b.tar"
        with tarfile.open(target, "w") as tar:
            tar.add(bundle, arcname="bundle")
    elif kind == "zip":
        target = tmp_path / "b.zip"
        with zipfile.ZipFile(target, "w") as zf:
            for p in sorted(bundle.iterdir()):
                zf.write(p, p.name)
    with pytest.raises(BundleError, match="more than 5 files"):
        read_bundle(target)
    _assert_bad_input(_cli("diagnose", "--from-logs", str(target)))


# --- broken archives ------------------------------------------------------------------------


def _healthy_tgz(tmp_path: Path) -> Path:
    tgz = tmp_path / "ok.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(BUNDLES / "h200-healthy" / "bundle", arcname="incident")
    return tgz


@pytest.mark.parametrize("how", ["corrupt_tgz", "truncated_tgz", "truncated_zip", "garbage_zip", "garbage_tgz"])
def test_broken_archive_is_one_line_exit_3(tmp_path, how):
    tgz = _healthy_tgz(tmp_path)
    data = tgz.read_bytes()
    if how == "corrupt_tgz":
        bad = tmp_path / "bad.tar.gz"
        bad.write_bytes(data[:20] + b"\0" * 64 + data[84:])
    elif how == "truncated_tgz":
        bad = tmp_path / "bad.tgz"
        bad.write_bytes(data[: len(data) // 2])
    elif how == "garbage_tgz":
        bad = tmp_path / "bad.tgz"
        bad.write_bytes(DMESG)
    else:
        zpath = tmp_path / "ok.zip"
        with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as zf:
            for p in sorted((BUNDLES / "h200-healthy" / "bundle").rglob("*")):
                zf.write(p, p.name)
        bad = tmp_path / "bad.zip"
        z = zpath.read_bytes()
        bad.write_bytes(z[: len(z) // 2] if how == "truncated_zip" else b"\x89PNG" + z[4:200])
    with pytest.raises(BundleError) as exc:
        read_bundle(bad)
    assert "\n" not in str(exc.value)
    _assert_bad_input(_cli("diagnose", "--from-logs", str(bad)))


def test_missing_path_with_markup_characters_is_one_line(tmp_path):
    missing = tmp_path / "a[/x]" / "[bold]nope.tgz"
    result = _cli("diagnose", "--from-logs", str(missing))
    _assert_bad_input(result)
    assert "[/x]" in result.stderr and "[bold]" in result.stderr


# --- odd contents ---------------------------------------------------------------------------


def test_binary_file_is_listed_not_parsed(tmp_path):
    bundle = tmp_path / "bundle"
    (bundle / "node1").mkdir(parents=True)
    (bundle / "node1" / "dmesg.log").write_bytes(DMESG)
    (bundle / "node1" / "core.bin").write_bytes(b"\x7fELF\x02\x01\x01\0" + DMESG)  # NVRM lines, but binary
    report = diagnose_bundle(bundle)
    assert "node1/core.bin" in report.coverage.unrecognised
    assert _skipped(report)["node1/core.bin"] == "binary file"
    assert "node1/core.bin" not in {c.path for c in report.coverage.files}
    assert all(e.path == "node1/dmesg.log" for f in report.findings for e in f.evidence)


def test_non_utf8_text_is_read_as_latin1(tmp_path):
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "dmesg.log").write_bytes(b"\xff\xfe caf\xe9 latin-1 \x80\x81\n" + DMESG)
    report = diagnose_bundle(bundle)
    assert report.verdict == "faulty"
    assert [c.path for c in report.coverage.files] == ["dmesg.log"]
    arts, _ = artefacts(read_bundle(bundle))
    # no UTF-8 sequence in the head: Latin-1 (facts/decode.py), every byte a character
    assert arts[0].text.startswith("\u00ff\u00fe caf\u00e9 latin-1 \x80\x81\n")


def test_single_plain_file_is_a_bundle(tmp_path):
    f = tmp_path / "nccl-debug.txt"
    shutil.copy(BUNDLES / "h200-bad-ifname" / "bundle" / "nccl-debug.txt", f)
    report = diagnose_bundle(f)
    assert report.verdict == "faulty"
    assert [c.path for c in report.coverage.files] == ["nccl-debug.txt"]
    assert report.nodes == ["vm"]


def test_single_file_over_the_limit_is_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(B, "MAX_FILE_BYTES", 1024)
    f = tmp_path / "nccl.log"
    f.write_bytes(NCCL)
    report = diagnose_bundle(f)
    assert "larger than" in _skipped(report)["nccl.log"]
    assert report.verdict == "inconclusive"


def test_empty_folder_is_inconclusive(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    report = diagnose_bundle(empty)
    assert report.verdict == "inconclusive"
    assert report.findings == [] and report.coverage.files == []
    result = _cli("diagnose", "--from-logs", str(empty))
    assert result.exit_code == 2, result.output
    assert result.stdout.startswith("INCONCLUSIVE")


# --- layout and node names ------------------------------------------------------------------


def _normalised(report) -> dict:
    data = report.model_dump()
    data["source"] = None
    return data


def test_archive_with_one_top_folder_reads_like_the_folder(tmp_path):
    src = BUNDLES / "h200-xid31-app" / "bundle"
    tgz = tmp_path / "wrapped.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(src, arcname="incident-7")
    zpath = tmp_path / "wrapped.zip"
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(src.rglob("*")):
            zf.write(p, "incident-7/" + p.relative_to(src).as_posix())
    want = _normalised(diagnose_bundle(src))
    assert want["nodes"] == ["vm"]
    assert _normalised(diagnose_bundle(tgz)) == want
    assert _normalised(diagnose_bundle(zpath)) == want


def test_dot_slash_member_names_are_cleaned(tmp_path):
    src = BUNDLES / "h200-xid31-app" / "bundle"
    tar_path = tmp_path / "dot.tar"
    with tarfile.open(tar_path, "w") as tar:
        tar.add(src, arcname=".")  # like `tar -C bundle -cf dot.tar .`: names "./vm/dmesg.txt"
    # one top folder ("vm") is taken for a wrapper, so this reads like the folder vm/
    assert _normalised(diagnose_bundle(tar_path)) == _normalised(diagnose_bundle(src / "vm"))


def _sos_tree(base: Path, with_hostname: bool) -> Path:
    top = base / "sosreport-node17-2024-01-01"
    (top / "sos_commands" / "kernel").mkdir(parents=True)
    (top / "sos_commands" / "kernel" / "dmesg").write_bytes(DMESG)
    if with_hostname:
        (top / "hostname").write_text("node17\n")
    return top


@pytest.mark.parametrize("with_hostname", [True, False])
def test_sosreport_archive_gives_the_node(tmp_path, with_hostname):
    top = _sos_tree(tmp_path / "src", with_hostname)
    txz = tmp_path / "sosreport-node17-2024-01-01.tar.xz"
    with tarfile.open(txz, "w:xz") as tar:
        tar.add(top, arcname=top.name)
    report = diagnose_bundle(txz)
    assert report.nodes == ["node17"]
    assert report.verdict == "faulty"
    assert report.findings[0].entity.node == "node17"
    assert "sos_commands/kernel/dmesg" in {c.path for c in report.coverage.files}


def test_sosreport_folder_with_hostname_gives_the_node(tmp_path):
    top = _sos_tree(tmp_path, with_hostname=True)
    assert diagnose_bundle(top).nodes == ["node17"]
    # the same tree one level down, beside another node's sosreport
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    shutil.copytree(top, bundle / top.name)
    other = _sos_tree(tmp_path / "other", with_hostname=True)
    (other / "hostname").write_text("node18\n")
    shutil.copytree(other, bundle / "sosreport-node18-2024-01-01")
    assert diagnose_bundle(bundle).nodes == ["node17", "node18"]


def test_per_node_folders_give_the_nodes(tmp_path):
    bundle = tmp_path / "bundle"
    for node in ("gpu-a01", "gpu-a02"):
        (bundle / node).mkdir(parents=True)
        (bundle / node / "dmesg.log").write_bytes(DMESG)
    (bundle / "logs").mkdir()  # a folder named for what it holds is not a node
    (bundle / "logs" / "nccl.log").write_bytes(NCCL)
    report = diagnose_bundle(bundle)
    by_path = {c.path: c.node for c in report.coverage.files}
    assert by_path == {"gpu-a01/dmesg.log": "gpu-a01", "gpu-a02/dmesg.log": "gpu-a02", "logs/nccl.log": "vm"}
    assert {f.entity.node for f in report.findings if f.cause == "gpu_fell_off_bus"} <= {"gpu-a01", "gpu-a02"}


@pytest.mark.parametrize(
    "name, content, node",
    [
        ("nccl.txt", NCCL, "vm"),
        ("messages", SYSLOG, "zozio32-p6-2487ea"),
        ("kern.log", SYSLOG_13, "Gipfeli"),
        ("session.txt", PROMPT, "node1"),
    ],
)
def test_flat_file_node_comes_from_content(tmp_path, name, content, node):
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / name).write_bytes(content)
    arts, _ = artefacts(read_bundle(bundle))
    assert [(a.path, a.node, a.node_from_folder) for a in arts] == [(name, node, False)]


@pytest.mark.parametrize(
    "line, node",
    [
        (b"Nov 29 18:32:13 node17 kernel: NVRM: Xid (PCI:0000:a1:00): 79, GPU has fallen off the bus.", "node17"),
        (b"2024-11-29T18:32:13.123456+00:00 node17 kernel: NVRM: Xid (PCI:0000:a1:00): 79", "node17"),
        (b"root@node1:~# nvidia-smi -q", "node1"),
        (b"zeyer@cn-234 ~ % nvidia-smi", "cn-234"),  # zsh's default prompt (rwth-i6/returnn#1486)
        (b"root@cn-234 /data # nvidia-smi", "cn-234"),  # zsh's, as root
        (b"mail zeyer@cn-234 about 50 % of it", None),  # near miss: an address in a sentence
        (b"zeyer@cn-234 ~ %nvidia-smi", None),
        (b"node17:1552:1564 [1] NCCL INFO Bootstrap : Using eth0", "node17"),
        (b"[1,0]<stdout>:node17:1552:1564 [1] NCCL INFO x", None),
        (b"[2024-01-01 10:00:00] node17:1552:1564 [1] NCCL WARN x", "node17"),
        (b"[6781741.548779] NVRM: Xid (PCI:0000:91:00): 79", None),
        (b"", None),
    ],
)
def test_node_from_content_lines(line, node):
    assert node_from_content(line + b"\n") == node


def test_unknown_node_when_nothing_says(tmp_path):
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "smi.txt").write_bytes(SMI_Q)
    arts, _ = artefacts(read_bundle(bundle))
    assert arts[0].node == "unknown"

"""Open an incident bundle safely, split it per node, and recognise each file by content.

A bundle is a folder, a ``.tar``/``.tar.gz``/``.tgz`` or a ``.zip`` (or a single file).
Archives are never extracted to disk: members are read into memory under limits, so a
hostile archive cannot write outside the bundle (``../``, absolute paths, links and device
files are refused and reported), nor exhaust memory (per-file, total and member limits,
checked on the bytes actually decompressed). An archive whose members share one top folder
reads exactly like that folder.
"""
from __future__ import annotations

import gzip
import io
import os
import re
import stat
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Iterator

from stethoscope.facts.parsers.base import Artefact

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024
MAX_MEMBERS = 200_000
HEAD_BYTES = 64 * 1024
#: names that promise an archive: one that does not open is an error, not a plain file
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")

#: top-level folder names that say what a folder holds, not which node it came from
NOT_NODE_FOLDERS = frozenset(
    """logs log nccl nccl-logs nccl_logs nccl-tests nccl_tests kernel dmesg nvidia-smi nvidia_smi
    torch pytorch var etc proc sys sos_commands sos_reports sos_logs output outputs results
    artifacts artefacts data metrics collected bundle incident tmp""".split()
)
#: first words of a bundle's own folder name that say what it is, not which node it came from
#: ("incident-4711", "case_12", "tmpk3j9x", "test_x0", "2024-05-01"): such a bundle's loose
#: files stay "unknown" unless their content names a host
GENERIC_BUNDLE_WORDS = NOT_NODE_FOLDERS | frozenset(
    """archive backup bug bugreport capture cap case collect copy crash debug diag diagnostics
    download downloads dump evidence extracted failure home input issue job new nvidia-bug-report old
    report root run sample samples snapshot steth support temp test tests ticket upload uploads work""".split()
)
#: tmp*, a date anywhere in the name, or a leading number: "tmpk3j9x", "logs-20240501", "4711-xid79"
_GENERIC_BUNDLE = re.compile(r"^(?:tmp|temp)|\d{4}[-_.]?\d\d[-_.]?\d\d|\d\d[-_.]\d\d[-_.]\d{4}|^\d+(?:[-_.]|$)", re.I)


class BundleError(Exception):
    """The bundle as a whole cannot be opened (missing, unreadable, not an archive)."""

    def __init__(self, message: str) -> None:
        # one line for the operator: tarfile's "r:*" error lists each method on its own line
        super().__init__(re.sub(r"\s*\n\s*", "; ", message.strip()))


@dataclass
class Skipped:
    path: str
    reason: str


class LazyFile:
    """A file of a folder bundle, read only when its turn comes, so that a bundle of 1,024
    nodes is never in memory at once. ``len()`` is its size on disk."""

    __slots__ = ("path", "size")

    def __init__(self, path: Path, size: int):
        self.path, self.size = path, size

    def __len__(self) -> int:
        return self.size


@dataclass
class RawBundle:
    source: str
    files: list[tuple[str, bytes]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: the bundle's own folder: the folder given, or an archive's single top folder
    root_name: str | None = None


def _safe_name(name: str) -> str | None:
    """A member name as a clean relative POSIX path, or None if it could escape."""
    name = name.replace("\\", "/")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return None
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        return None
    return "/".join(parts)


class _Budget:
    def __init__(self) -> None:
        self.total = 0
        self.members = 0

    def read(self, stream: io.BufferedIOBase | io.RawIOBase, name: str, raw: RawBundle) -> bytes | None:
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise BundleError(f"more than {MAX_MEMBERS} files in the bundle")
        data = stream.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raw.skipped.append(Skipped(name, f"larger than {MAX_FILE_BYTES >> 20} MiB"))
            return None
        self.total += len(data)
        if self.total > MAX_TOTAL_BYTES:
            raise BundleError(f"bundle expands to more than {MAX_TOTAL_BYTES >> 30} GiB")
        return data

    def account(self, size: int, name: str, raw: RawBundle) -> bool:
        """The same limits for a file that will be read later (a folder bundle's)."""
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise BundleError(f"more than {MAX_MEMBERS} files in the bundle")
        if size > MAX_FILE_BYTES:
            raw.skipped.append(Skipped(name, f"larger than {MAX_FILE_BYTES >> 20} MiB"))
            return False
        self.total += size
        if self.total > MAX_TOTAL_BYTES:
            raise BundleError(f"bundle expands to more than {MAX_TOTAL_BYTES >> 30} GiB")
        return True


def _read_tar(path: Path, raw: RawBundle) -> None:
    budget = _Budget()
    try:
        with tarfile.open(path, mode="r:*") as tar:
            for member in tar:
                name = _safe_name(member.name)
                if member.isdir():
                    continue
                if name is None:
                    raw.skipped.append(Skipped(member.name, "unsafe path (absolute or '..')"))
                    continue
                if member.issym() or member.islnk():
                    raw.skipped.append(Skipped(name, f"link to {member.linkname!r} not followed"))
                    continue
                if not member.isfile():
                    raw.skipped.append(Skipped(name, "not a regular file"))
                    continue
                stream = tar.extractfile(member)
                if stream is None:
                    continue
                data = budget.read(stream, name, raw)
                if data is not None:
                    raw.files.append((name, data))
    except (tarfile.TarError, EOFError, OSError, zlib_error()) as exc:
        raise BundleError(f"{path}: not a readable tar archive ({exc})") from None


def zlib_error() -> type[Exception]:
    import zlib

    return zlib.error


def _read_zip(path: Path, raw: RawBundle) -> None:
    budget = _Budget()
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if info.is_dir():
                    continue
                name = _safe_name(info.filename)
                if name is None:
                    raw.skipped.append(Skipped(info.filename, "unsafe path (absolute or '..')"))
                    continue
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raw.skipped.append(Skipped(name, "link not followed"))
                    continue
                # permission bits without a file type (Python's writestr: 0o600) are a plain file
                if stat.S_IFMT(mode) and not stat.S_ISREG(mode):
                    raw.skipped.append(Skipped(name, "not a regular file"))
                    continue
                if info.flag_bits & 0x1:
                    raw.skipped.append(Skipped(name, "encrypted, not read"))
                    continue
                with zf.open(info) as stream:
                    data = budget.read(stream, name, raw)
                if data is not None:
                    raw.files.append((name, data))
    except (zipfile.BadZipFile, OSError, NotImplementedError, zlib_error()) as exc:
        raise BundleError(f"{path}: not a readable zip archive ({exc})") from None


def _read_dir(root: Path, raw: RawBundle) -> None:
    budget = _Budget()
    real_root = root.resolve()
    def unreadable(exc: OSError) -> None:  # os.walk would drop an unreadable folder silently
        rel = Path(exc.filename).relative_to(root).as_posix() if exc.filename else "."
        raw.skipped.append(Skipped(rel, f"unreadable folder: {exc.strerror or exc}"))

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=unreadable):
        dirnames.sort()
        for d in list(dirnames):
            if os.path.islink(os.path.join(dirpath, d)):
                dirnames.remove(d)
                rel = os.path.relpath(os.path.join(dirpath, d), root).replace(os.sep, "/")
                raw.skipped.append(Skipped(rel, "linked folder not followed"))
        for fname in sorted(filenames):
            full = Path(dirpath) / fname
            rel = full.relative_to(root).as_posix()
            try:
                if full.is_symlink():
                    target = full.resolve()
                    if not target.is_relative_to(real_root):
                        raw.skipped.append(Skipped(rel, "link points outside the bundle"))
                        continue
                st = full.stat()
                if not stat.S_ISREG(st.st_mode):
                    raw.skipped.append(Skipped(rel, "not a regular file"))
                    continue
                with open(full, "rb") as stream:
                    # read later, one at a time: any file but the gzipped ones (their size
                    # once expanded counts against the limits now) and the host-name files
                    if not fname.endswith("hostname") and stream.read(2) != b"\x1f\x8b":
                        if budget.account(st.st_size, rel, raw):
                            raw.files.append((rel, LazyFile(full, st.st_size)))
                        continue
                    stream.seek(0)
                    data = budget.read(stream, rel, raw)
            except OSError as exc:
                raw.skipped.append(Skipped(rel, f"unreadable: {exc.strerror or exc}"))
                continue
            if data is not None:
                raw.files.append((rel, data))


def read_bundle(path: str | os.PathLike[str]) -> RawBundle:
    p = Path(path)
    raw = RawBundle(source=str(path))
    if not p.exists():
        raise BundleError(f"{path}: no such file or folder")
    lname = p.name.lower()
    if p.is_dir():
        _read_dir(p, raw)
        raw.root_name = p.resolve().name
    elif not p.is_file():
        raise BundleError(f"{path}: not a regular file or folder")
    elif lname.endswith(".zip") or zipfile.is_zipfile(p):
        _read_zip(p, raw)
        _strip_common_top(raw)
    elif lname.endswith(TAR_SUFFIXES) or _is_tar(p):
        _read_tar(p, raw)
        _strip_common_top(raw)
    else:
        try:
            with open(p, "rb") as stream:
                data = _Budget().read(stream, p.name, raw)
        except OSError as exc:
            raise BundleError(f"{path}: unreadable ({exc.strerror})") from None
        if data is not None:
            raw.files.append((p.name, data))
    _gunzip_members(raw)
    return raw


def _is_tar(p: Path) -> bool:
    try:
        return tarfile.is_tarfile(p)
    except (OSError, EOFError, tarfile.TarError, zlib_error()):
        return False


def _strip_common_top(raw: RawBundle) -> None:
    """An archive that wraps everything in one top folder reads like that folder."""
    names = [n for n, _ in raw.files]
    if not names or any("/" not in n for n in names):
        return
    tops = {n.split("/", 1)[0] for n in names}
    if len(tops) != 1:
        return
    top = tops.pop()
    raw.top = top  # type: ignore[attr-defined]
    raw.root_name = top
    raw.files = [(n.split("/", 1)[1], d) for n, d in raw.files]
    for s in raw.skipped:
        if s.path.startswith(top + "/"):
            s.path = s.path[len(top) + 1 :]


def _gunzip_members(raw: RawBundle) -> None:
    out: list[tuple[str, bytes]] = []
    total = sum(len(d) for _, d in raw.files)  # the total limit counts decompressed bytes
    for name, data in raw.files:
        if isinstance(data, LazyFile):
            out.append((name, data))  # expanded, within the same limits, when it is read
            continue
        if data[:2] == b"\x1f\x8b":
            try:
                with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
                    plain = gz.read(MAX_FILE_BYTES + 1)
            except (OSError, EOFError, zlib_error()) as exc:
                raw.skipped.append(Skipped(name, f"corrupt gzip member ({exc})"))
                continue
            if len(plain) > MAX_FILE_BYTES:
                raw.skipped.append(Skipped(name, f"expands to more than {MAX_FILE_BYTES >> 20} MiB"))
                continue
            total += len(plain) - len(data)
            if total > MAX_TOTAL_BYTES:
                raise BundleError(f"bundle expands to more than {MAX_TOTAL_BYTES >> 30} GiB")
            out.append((name, plain))
        else:
            out.append((name, data))
    raw.files = out


# NCCL line prefix:          "vm:1552:1564 [1] NCCL INFO ..."
NCCL_HOST = re.compile(rb"^(?:\[[^\]]*\]\s*)*([A-Za-z0-9][\w.-]*):\d+:\d+ \[\d+\] NCCL", re.M)
# syslog / journal host:     "Nov 29 18:32:13 node17 kernel: NVRM: Xid ..."
SYSLOG_HOST = re.compile(rb"^(?:\w{3} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT[\d:.]+(?:[+-]\d{2}:?\d{2}|Z)?) ([A-Za-z0-9][\w.-]*) kernel:", re.M)
# shell prompt:              "root@node1:~# nvidia-smi -q"      "[root@n120 ~]# modprobe -v nv_peer_mem" (RHEL)
PROMPT_HOST = re.compile(rb"^(?:\(\S+\) )?(?:[\w.-]+@([A-Za-z0-9][\w.-]*):[^\n]*?|\[[\w.-]+@([A-Za-z0-9][\w.-]*) [^\]\n]*\])[#$] ", re.M)
# sosreport "hostname" file: a single line holding the host name
HOSTNAME_FILE = re.compile(r"^[A-Za-z0-9][\w.-]*$")


def node_from_content(head: bytes) -> str | None:
    for pat in (NCCL_HOST, SYSLOG_HOST, PROMPT_HOST):
        m = pat.search(head)
        if m:
            return (m[1] or m[m.lastindex]).decode("ascii", "replace")
    return None


def _sos_host(files: dict[str, bytes], prefix: str) -> str | None:
    data = files.get(prefix + "hostname") or files.get(prefix + "etc/hostname")
    if data:
        text = data.decode("utf-8", "replace").strip()
        if HOSTNAME_FILE.match(text):
            return text
    return None


def bundle_node(raw: RawBundle, tops: set[str]) -> str | None:
    """The node a bundle that is ONE node's folder names (``node9/``, ``tar czf node9.tgz
    node9``), for its files that neither a node subfolder nor their content place: None for
    a generic name (GENERIC_BUNDLE_WORDS, tmp*, a date) or a wrapper of node folders."""
    name = raw.root_name
    if not name or not HOSTNAME_FILE.match(name) or _GENERIC_BUNDLE.search(name):
        return None
    low = name.lower()
    if low in GENERIC_BUNDLE_WORDS or re.split(r"[-_.]", low, maxsplit=1)[0] in GENERIC_BUNDLE_WORDS:
        return None
    if any(t.lower() not in NOT_NODE_FOLDERS for t in tops):
        return None  # it holds node folders: a wrapper, not a node
    return name


def is_binary(head: bytes) -> bool:
    return b"\x00" in head[:8192]


def _load(lazy: LazyFile, name: str, raw: RawBundle) -> bytes | None:
    """Read a folder bundle's file now (gunzipped under the same limits); a problem is a
    skipped file, as it would have been at scan time."""
    try:
        with open(lazy.path, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raw.skipped.append(Skipped(name, f"unreadable: {exc.strerror or exc}"))
        return None
    if len(data) > MAX_FILE_BYTES:
        raw.skipped.append(Skipped(name, f"larger than {MAX_FILE_BYTES >> 20} MiB"))
        return None
    if data[:2] == b"\x1f\x8b":
        one = RawBundle(source=raw.source, files=[(name, data)])
        _gunzip_members(one)
        raw.skipped.extend(one.skipped)
        return one.files[0][1] if one.files else None
    return data


def artefacts(raw: RawBundle) -> tuple[list[Artefact], list[Skipped]]:
    """Turn the files into artefacts with their node; binary files are returned as skipped."""
    skipped: list[Skipped] = []
    return list(iter_artefacts(raw, skipped)), skipped


def iter_artefacts(raw: RawBundle, skipped: list[Skipped], release: bool = False) -> Iterator[Artefact]:
    """The artefacts of ``raw`` one at a time, in bundle order; binary files go to ``skipped``.

    With ``release``, each file's bytes are dropped from ``raw`` once its artefact is made, so
    that a caller that parses and drops each artefact in turn never holds the whole bundle twice
    (bytes and text)."""
    names = [n for n, _ in raw.files]
    # _sos_host reads only "hostname" files: keep those, not a second reference to every file
    files = {n: d for n, d in raw.files if n.endswith("hostname")}
    tops = {n.split("/", 1)[0] for n in names if "/" in n}
    sos_root = any(n.startswith("sos_commands/") for n in names)
    sos_tops = {n.split("/", 1)[0] for n in names if n.count("/") >= 2 and n.split("/", 2)[1] == "sos_commands"}
    root_host = _sos_host(files, "") if sos_root else None
    own = bundle_node(raw, tops)
    if sos_root and root_host is None:
        top = getattr(raw, "top", "")
        m = re.match(r"sosreport-([A-Za-z0-9][\w.-]*?)-\d", top)
        root_host = m[1] if m else None
    for i, name in enumerate(names):
        data = raw.files[i][1]
        if release:
            raw.files[i] = (name, b"")
        if isinstance(data, LazyFile):
            loaded = _load(data, name, raw)
            if loaded is None:
                continue
            data = loaded
        head = data[:HEAD_BYTES]
        if is_binary(head):
            skipped.append(Skipped(name, "binary file"))
            continue
        node, from_folder = None, False
        if root_host:
            node, from_folder = root_host, True
        elif "/" in name:
            top = name.split("/", 1)[0]
            if top.lower() not in NOT_NODE_FOLDERS and top in tops:
                sos = _sos_host(files, top + "/") if top in sos_tops else None
                node, from_folder = sos or top, True
        if node is None:
            node = node_from_content(head) or own or "unknown"
        text = data.decode("utf-8", errors="replace")
        del data, head
        yield Artefact(path=name, text=text, node=node, node_from_folder=from_folder)

"""Open an incident bundle safely, split it per node, and recognise each file by content.

A bundle is a folder, a ``.tar``/``.tar.gz``/``.tgz`` or a ``.zip`` (or a single file, or ``-``:
standard input, a paste or an archive piped in, spooled to a private temporary file first).
Archives are never extracted to disk, nor held in memory: :func:`read_bundle` lists the
members under limits (per-file, total and member counts, on the sizes once expanded), and
:func:`iter_artefacts` reads each member when its turn comes, decoded incrementally in windows
of whole lines (facts/decode.py, sizes from the memory budget of facts/limits.py). A hostile
archive cannot write outside the bundle (``../``, absolute paths, links and device files are
refused and reported), nor exhaust memory. An archive whose members share one top folder
reads exactly like that folder; a folder is walked without recursion, to a depth limit.
"""
from __future__ import annotations

import atexit
import gzip
import io
import os
import re
import shutil
import stat
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Callable, Iterator

from stethoscope.facts.decode import Decoder, sniff
from stethoscope.facts.limits import DEFAULT, Budget, Hit
from stethoscope.facts.lines import normalise, run_hosts, without_block_labels, without_line_labels
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


#: a folder with no file under it: a node's folder that nothing was collected into (the
#: collector failed there) is a missing signal, listed, never dropped silently
EMPTY_FOLDER = "empty folder: nothing was collected into it"


def _empty_folders(folders: list[str], raw: "RawBundle") -> None:
    """An archive's folders (named by their own entries) under which no file or skipped entry lies."""
    held: set[str] = set()
    for name in [n for n, _ in raw.files] + [s.path for s in raw.skipped]:
        parts = name.split("/")
        held.update("/".join(parts[:i]) for i in range(1, len(parts)))
    raw.skipped.extend(Skipped(f, EMPTY_FOLDER) for f in sorted(set(folders) - held))


class LazyFile:
    """A file of the bundle, read only when its turn comes (a folder's file, an archive member),
    so that neither a bundle of 1,024 nodes nor an archive is ever in memory at once. ``len()``
    is its size once expanded (a gzipped file's counted when the bundle was listed)."""

    __slots__ = ("path", "size", "opener", "gz")

    def __init__(self, path: str | Path | None, size: int, opener: Callable[[], IO[bytes]] | None = None, gz: bool = False):
        self.path, self.size, self.opener, self.gz = path, size, opener, gz

    def __len__(self) -> int:
        return self.size

    def open(self) -> IO[bytes]:
        stream = self.opener() if self.opener is not None else open(self.path, "rb")  # type: ignore[arg-type]
        return gzip.GzipFile(fileobj=stream) if self.gz else stream


@dataclass
class RawBundle:
    source: str
    files: list[tuple[str, bytes | LazyFile]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: the bundle's own folder: the folder given, or an archive's single top folder
    root_name: str | None = None
    #: the limits that bit while listing and reading (facts/limits.py), for the coverage
    hits: list[Hit] = field(default_factory=list)
    #: archives kept open while their members are read
    closers: list[Callable[[], None]] = field(default_factory=list, repr=False)

    def close(self) -> None:
        for close in self.closers:
            close()
        self.closers.clear()


def shown_name(name: str) -> str:
    """A file name as text any report can hold: bytes that are not UTF-8 (a folder or tar member
    named in Latin-1; Python keeps them as lone surrogates, which no JSON or terminal takes)
    written as ``\\xff``."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _safe_name(name: str) -> str | None:
    """A member name as a clean relative POSIX path, or None if it could escape."""
    name = shown_name(name.replace("\\", "/"))  # Windows separators first: the escapes hold backslashes
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return None
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        return None
    return "/".join(parts)


def _expanded_size(stream: IO[bytes], name: str, raw: RawBundle) -> int | None:
    """A gzipped file's size once expanded, counted without keeping it (None: skipped)."""
    total = 0
    try:
        with gzip.GzipFile(fileobj=stream) as gz:
            while chunk := gz.read(1 << 20):
                total += len(chunk)
                if total > MAX_FILE_BYTES:
                    raw.skipped.append(Skipped(name, f"expands to more than {MAX_FILE_BYTES >> 20} MiB"))
                    return None
    except (OSError, EOFError, zlib_error()) as exc:
        raw.skipped.append(Skipped(name, f"corrupt gzip member ({exc})"))
        return None
    return total


class _Budget:
    """The limits on what a bundle holds, counted as it is listed (sizes once expanded)."""

    def __init__(self) -> None:
        self.total = 0
        self.members = 0

    def add(self, name: str, size: int, opener: Callable[[], IO[bytes]], raw: RawBundle,
            path: str | Path | None = None) -> None:
        """List one regular file: gzipped ones are expanded once to count their size, files
        named like a host-name file are read now (they name the node of their folder)."""
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise BundleError(f"more than {MAX_MEMBERS} files in the bundle")
        try:
            with opener() as stream:
                gz = stream.read(2) == b"\x1f\x8b"
        except _MEMBER_READ_ERRORS as exc:  # a small zip member is read whole: a bad CRC shows here
            raw.skipped.append(Skipped(name, f"unreadable: {exc}"))
            return
        expanded: int | None = size
        if gz:
            with opener() as stream:
                expanded = _expanded_size(stream, name, raw)
            if expanded is None:
                return
        if expanded > MAX_FILE_BYTES:
            raw.skipped.append(Skipped(name, f"larger than {MAX_FILE_BYTES >> 20} MiB"))
            return
        self.total += expanded
        if self.total > MAX_TOTAL_BYTES:
            raise BundleError(f"bundle expands to more than {MAX_TOTAL_BYTES >> 30} GiB")
        if name.endswith("hostname") and not gz and size <= 4096:
            try:
                with opener() as stream:
                    raw.files.append((name, stream.read(4096)))
            except _MEMBER_READ_ERRORS as exc:
                raw.skipped.append(Skipped(name, f"unreadable: {exc}"))
            return
        raw.files.append((name, LazyFile(path, expanded, None if path is not None else opener, gz)))


def _read_tar(path: Path, raw: RawBundle) -> None:
    """Listed member by member (sizes from the headers, gzipped members expanded to count
    them); each member's bytes are read again when its turn comes, never kept."""
    budget = _Budget()
    try:
        tar = tarfile.open(path, mode="r:*")
        raw.closers.append(tar.close)
        folders: list[str] = []
        for member in tar:
            name = _safe_name(member.name)
            if member.isdir():
                folders.extend([name] if name else [])
                continue
            if name is None:
                raw.skipped.append(Skipped(shown_name(member.name), "unsafe path (absolute or '..')"))
                continue
            if member.issym() or member.islnk():
                raw.skipped.append(Skipped(name, f"link to {member.linkname!r} not followed"))
                continue
            if not member.isfile():
                raw.skipped.append(Skipped(name, "not a regular file"))
                continue
            budget.add(name, member.size, lambda m=member: _member(tar, m), raw)
        _empty_folders(folders, raw)
        if not _ends_as_a_tar_should(tar):
            raw.hits.append(Hit("cut_short", path.name, 0, "the archive stops after a whole member without tar's "
                                "end-of-archive blocks (a copy or transfer cut short): members after it are missing"))
    except (tarfile.TarError, EOFError, OSError, zlib_error()) as exc:
        raw.close()
        raise BundleError(f"{path}: not a readable tar archive ({exc})") from None
    except BundleError:
        raw.close()
        raise


def _ends_as_a_tar_should(tar: tarfile.TarFile) -> bool:
    """A zero block follows the last member: tar's end-of-archive marker (POSIX: two zero blocks;
    GNU tar, bsdtar and Python write them). Without it the archive was cut at a member's end, and
    reads as whole with fewer files."""
    try:
        tar.fileobj.seek(tar.offset)
        block = tar.fileobj.read(tarfile.BLOCKSIZE)
    except _MEMBER_READ_ERRORS:
        return False
    return len(block) == tarfile.BLOCKSIZE and not block.strip(b"\0")


def _member(tar: tarfile.TarFile, member: tarfile.TarInfo) -> IO[bytes]:
    stream = tar.extractfile(member)
    if stream is None:  # pragma: no cover - regular files always have a stream
        return io.BytesIO(b"")
    return stream


def zlib_error() -> type[Exception]:
    import zlib

    return zlib.error


#: what reading one archive member can raise; the member is listed as unreadable, the rest read
_MEMBER_READ_ERRORS = (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError, zlib_error())


class _Capped(io.RawIOBase):
    """A zip member read no further than the size its header claims (a lying header is a bomb)."""

    def __init__(self, stream: IO[bytes], limit: int):
        self.stream, self.left = stream, limit

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:  # type: ignore[override]
        if self.left <= 0:
            return 0
        data = self.stream.read(min(len(buf), self.left))
        buf[: len(data)] = data
        self.left -= len(data)
        return len(data)

    def close(self) -> None:
        self.stream.close()
        super().close()


def _read_zip(path: Path, raw: RawBundle) -> None:
    budget = _Budget()
    try:
        zf = zipfile.ZipFile(path)
        raw.closers.append(zf.close)
        folders: list[str] = []
        for info in zf.infolist():
            if info.is_dir():
                name = _safe_name(info.filename)
                folders.extend([name] if name else [])
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
            size = min(info.file_size, MAX_FILE_BYTES + 1)
            budget.add(name, info.file_size,
                       lambda i=info, n=size: io.BufferedReader(_Capped(zf.open(i), n)), raw)
        _empty_folders(folders, raw)
    except (zipfile.BadZipFile, OSError, NotImplementedError, zlib_error()) as exc:
        raw.close()
        raise BundleError(f"{path}: not a readable zip archive ({exc})") from None
    except BundleError:
        raw.close()
        raise


#: folders below the bundle's root that are read; deeper ones are listed as skipped
MAX_DEPTH = 32


def _read_dir(root: Path, raw: RawBundle) -> None:
    """Walked with a stack, not recursion (a folder nested 1,500 deep is no RecursionError),
    in sorted order, links not followed, folders deeper than MAX_DEPTH listed, not read.
    Names are joined as strings (os.scandir's entries), not pathlib objects: at 1,024 nodes
    (20,480 files) pathlib's parsing was most of the listing's ~3 s."""
    budget = _Budget()
    real_root = os.path.realpath(root)
    stack: list[tuple[str, str, int]] = [(os.fspath(root), "", 0)]  # (folder, its name in the bundle, depth)
    renamed = False  # a name shown_name wrote otherwise (bytes not UTF-8): its order is no longer the walk's
    while stack:
        folder, rel_folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:  # an unreadable folder is listed, never dropped silently
            raw.skipped.append(Skipped(shown_name(rel_folder or "."), f"unreadable folder: {exc.strerror or exc}"))
            continue
        if not entries and depth:
            raw.skipped.append(Skipped(shown_name(rel_folder), EMPTY_FOLDER))
            continue
        subfolders = []
        prefix = rel_folder + "/" if rel_folder else ""
        for entry in entries:
            full = entry.path
            rel = shown_name(name := prefix + entry.name)
            renamed = renamed or rel is not name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 > MAX_DEPTH:
                        raw.skipped.append(Skipped(rel, f"folder deeper than {MAX_DEPTH} levels, not read"))
                        raw.hits.append(Hit("folder_depth", rel, 0, f"folders below {MAX_DEPTH} levels are not read"))
                    else:
                        subfolders.append((full, prefix + entry.name))
                    continue
                if entry.is_symlink():
                    if os.path.isdir(full):
                        raw.skipped.append(Skipped(rel, "linked folder not followed"))
                        continue
                    try:
                        target = Path(full).resolve(strict=True)
                    except (OSError, RuntimeError):  # RuntimeError: a link loop, on Python < 3.13
                        raw.skipped.append(Skipped(rel, "link that leads nowhere (dangling, or a loop of links), not followed"))
                        continue
                    if not target.is_relative_to(real_root):
                        raw.skipped.append(Skipped(rel, "link points outside the bundle"))
                        continue
                st = os.stat(full)
                if not stat.S_ISREG(st.st_mode):
                    raw.skipped.append(Skipped(rel, "not a regular file"))
                    continue
                budget.add(rel, st.st_size, lambda f=full: open(f, "rb", buffering=0), raw, path=full)
            except OSError as exc:
                raw.skipped.append(Skipped(rel, f"unreadable: {exc.strerror or exc}"))
        stack.extend((f, r, depth + 1) for f, r in reversed(subfolders))
    # files of a folder before those of its subfolders, folders in sorted order: os.walk's order, which the walk above
    # lists them in already (a folder's entries sorted by name, its files listed before its subfolders are popped, in
    # order). Sorted again only where a name was written otherwise (shown_name: "\\xff" sorts elsewhere than the
    # byte it writes): the sort's keys cost ~0.1-0.2 CPU s of the serial path at 1,024 bench nodes (bench/speed_rI7.md)
    if renamed:
        raw.files.sort(key=lambda item: _walk_key(item[0]))


def _walk_key(name: str) -> tuple[tuple[int, str], ...]:
    parts = name.split("/")
    # os.walk (top-down) lists a folder's files before descending: a file sorts before folders
    return tuple((1, p) for p in parts[:-1]) + ((0, parts[-1]),)


#: what ``--from-logs -`` reads: standard input, named so in the coverage and the evidence
STDIN = "-"
STDIN_NAME = "stdin"


def _spool_stdin(stream: IO[bytes] | None = None) -> Path:
    """Standard input copied to a file of a private temporary folder (removed when the process
    ends), at most MAX_TOTAL_BYTES: a paste or an archive piped in (``xclip -o | steth diagnose
    --from-logs -``, ``ssh node tar cz /var/log | ...``) is then read like any file given,
    archives member by member, nothing of it held in memory."""
    if stream is None:
        if sys.stdin is None or sys.stdin.isatty():
            raise BundleError("-: standard input is a terminal: pipe a paste or a bundle into it "
                              "(e.g. xclip -o | steth diagnose --from-logs -)")
        stream = sys.stdin.buffer
    folder = tempfile.mkdtemp(prefix="steth-stdin-")
    atexit.register(shutil.rmtree, folder, True)
    dest = Path(folder) / STDIN_NAME
    copied = 0
    with open(dest, "wb") as out:
        while chunk := stream.read(1 << 20):
            copied += len(chunk)
            if copied > MAX_TOTAL_BYTES:
                raise BundleError(f"-: standard input holds more than {MAX_TOTAL_BYTES >> 30} GiB")
            out.write(chunk)
    return dest


def read_bundle(path: str | os.PathLike[str]) -> RawBundle:
    """List a bundle's files under the limits; their bytes are read by :func:`iter_artefacts`.
    An archive stays open until its artefacts have all been made (``RawBundle.close``).
    ``-``: standard input (_spool_stdin)."""
    if os.fspath(path) == STDIN:
        raw = read_bundle(_spool_stdin())
        raw.source = STDIN_NAME
        return raw
    p = Path(path)
    raw = RawBundle(source=shown_name(str(path)))
    if not p.exists():
        raise BundleError(f"{path}: no such file or folder")
    lname = p.name.lower()
    if p.is_dir():
        _read_dir(p, raw)
        raw.root_name = shown_name(p.resolve().name)
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
            _Budget().add(shown_name(p.name), p.stat().st_size, lambda: open(p, "rb"), raw, path=p)
        except OSError as exc:
            raise BundleError(f"{path}: unreadable ({exc.strerror})") from None
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


# NCCL line prefix:          "vm:1552:1564 [1] NCCL INFO ..."
NCCL_HOST = re.compile(rb"^(?:\[[^\]]*\]\s*)*([A-Za-z0-9][\w.-]*):\d+:\d+ \[\d+\] NCCL", re.M)
# syslog / journal host:     "Nov 29 18:32:13 node17 kernel: NVRM: Xid ..."
SYSLOG_HOST = re.compile(rb"^(?:\w{3} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT[\d:.]+(?:[+-]\d{2}:?\d{2}|Z)?) ([A-Za-z0-9][\w.-]*) kernel:", re.M)
# shell prompt:              "root@node1:~# nvidia-smi -q"      "[root@n120 ~]# modprobe -v nv_peer_mem" (RHEL)
#   zsh's default (%n@%m %1~ %#): "zeyer@cn-234 ~ % nvidia-smi" (rwth-i6/returnn#1486, fixtures/harvest/cases/114-*)
PROMPT_HOST = re.compile(rb"^(?:\(\S+\) )?(?:[\w.-]+@([A-Za-z0-9][\w.-]*):[^\n]*?[#$]|\[[\w.-]+@([A-Za-z0-9][\w.-]*) [^\]\n]*\][#$]"
                         rb"|[\w.-]+@([A-Za-z0-9][\w.-]*) [^\s@]{1,80} [%#]) ", re.M)
# sosreport "hostname" file: a single line holding the host name
#: the node of a file that neither its folder, its bundle's name nor its content places
UNKNOWN_NODE = "unknown"
HOSTNAME_FILE = re.compile(r"^[A-Za-z0-9][\w.-]*$")


def node_from_content(head: bytes) -> str | None:
    for pat in (NCCL_HOST, SYSLOG_HOST, PROMPT_HOST):
        m = pat.search(head)
        if m:
            return (m[1] or m[m.lastindex]).decode("ascii", "replace")
    return None


def _content_node(head: str) -> str | None:
    """The node a file's head names, also behind the wrappers a paste, a launcher or a log
    shipper put on its lines (facts/lines.py: an mpirun tag, Ray's actor tag, a CRI stamp)."""
    node = node_from_content(head.encode("utf-8", "replace"))
    if node is None:
        bare = normalise(head)
        if bare is not head:
            node = node_from_content(bare.encode("utf-8", "replace"))
    if node is None:  # a launcher's label on every line (pdsh's "host: ", compose's "svc-1  | "): the
        # host its lines name behind it (the label itself may be a kernel device's: not taken as a host)
        bare = without_line_labels(head[:head.rfind("\n") + 1] if "\n" in head else head)
        if bare is not None:
            node = node_from_content(str(normalise(bare)).encode("utf-8", "replace"))
    if node is None and ": " in head:  # a launcher's label on a run of lines below other lines, one pdsh host's
        # (run_hosts) or compose's service's (without_block_labels), as engine/parse_pool.py reads them: the host the
        # lines name behind it, as the bare lines name it (a syslog line's host under "gpu-node07: " or
        # "trainer-1  | " below a pasted table; round rN4's probe)
        run = run_hosts(head)
        bare = run[1] if run is not None and len(set(run[0]) - {None}) == 1 else \
            without_block_labels(head) if "  | " in head else None
        if bare is not None:
            node = node_from_content(str(normalise(bare)).encode("utf-8", "replace"))
    return node


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


def unplaced(raw: RawBundle) -> bool:
    """Whether the files of ``raw`` that name no host are the node UNKNOWN_NODE: a flat bundle (no
    node folders, not a sosreport) whose own name is not a node's (bundle_node)."""
    names = [n for n, _ in raw.files]
    tops = {n.split("/", 1)[0] for n in names if "/" in n}
    if any(n.startswith("sos_commands/") or "/sos_commands/" in n for n in names):
        return False
    if any(t.lower() not in NOT_NODE_FOLDERS for t in tops):
        return False
    return bundle_node(raw, tops) is None


def is_binary(head: bytes) -> bool:
    """Not text in any encoding :mod:`stethoscope.facts.decode` reads (UTF-16 has NULs too)."""
    return sniff(head) is None


def _open(data: bytes | LazyFile, name: str, raw: RawBundle) -> IO[bytes] | None:
    if isinstance(data, LazyFile):
        try:
            return data.open()
        except OSError as exc:
            raw.skipped.append(Skipped(name, f"unreadable: {exc.strerror or exc}"))
            return None
    if data[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=io.BytesIO(data))
    return io.BytesIO(data)


def artefacts(raw: RawBundle, budget: Budget = DEFAULT) -> tuple[list[Artefact], list[Skipped]]:
    """Turn the files into artefacts with their node; binary files are returned as skipped."""
    skipped: list[Skipped] = []
    return list(iter_artefacts(raw, skipped, budget=budget)), skipped


@dataclass
class FileTask:
    """A folder's file, handed to whoever parses it to read itself (a parse worker: its text
    then never crosses a pipe). What reading it finds besides its artefacts (skipped as binary
    or empty, unreadable, a line cut) goes where :func:`iter_artefacts` would put it, through
    :func:`task_artefacts`'s sink."""

    name: str
    file: LazyFile
    folder_node: str | None
    own: str | None

    @property
    def size(self) -> int:
        return len(self.file)


def task_artefacts(task: FileTask, sink: RawBundle, skipped: list[Skipped],
                   budget: Budget = DEFAULT) -> Iterator[Artefact]:
    """The artefacts of one :class:`FileTask`, read now, as :func:`iter_artefacts` reads a
    file: unreadable files go to ``sink.skipped``, limits to ``sink.hits``, binary and empty
    files to ``skipped``."""
    stream = _open(task.file, task.name, sink)
    if stream is None:
        return
    with stream:
        yield from _file_artefacts(sink, stream, task.name, skipped, budget, task.folder_node, task.own)


def iter_artefacts(raw: RawBundle, skipped: list[Skipped], release: bool = False,
                   budget: Budget = DEFAULT, tasks: bool = False) -> Iterator[Artefact | FileTask]:
    """The artefacts of ``raw`` one at a time, in bundle order; binary files go to ``skipped``.

    Each file is read when its turn comes and decoded incrementally (facts/decode.py); a file
    of more than ``budget.window_chars`` characters gives one artefact per window of whole
    lines (``line_offset``: the lines before it), so no file is ever held whole. With
    ``release``, each file is dropped from ``raw`` once read. The limits that bite (a line cut,
    a file larger than its archive header said) go to ``raw.hits``. With ``tasks``, a folder's
    file is not read here: a :class:`FileTask` says where it is and which node it belongs to
    (an archive's members, read through the open archive, are still read here)."""
    names = [n for n, _ in raw.files]
    # _sos_host reads only "hostname" files: read at listing time
    files = {n: d for n, d in raw.files if n.endswith("hostname") and isinstance(d, bytes)}
    tops = {n.split("/", 1)[0] for n in names if "/" in n}
    sos_root = any(n.startswith("sos_commands/") for n in names)
    sos_tops = {n.split("/", 1)[0] for n in names if n.count("/") >= 2 and n.split("/", 2)[1] == "sos_commands"}
    root_host = _sos_host(files, "") if sos_root else None
    own = bundle_node(raw, tops)
    if sos_root and root_host is None:
        top = getattr(raw, "top", "")
        m = re.match(r"sosreport-([A-Za-z0-9][\w.-]*?)-\d", top)
        root_host = m[1] if m else None
    try:
        for i, name in enumerate(names):
            data = raw.files[i][1]
            if release:
                raw.files[i] = (name, b"")
            if tasks and isinstance(data, LazyFile) and data.path is not None and data.opener is None:
                yield FileTask(name, data, _folder_node(name, tops, sos_tops, files, root_host), own)
                continue
            stream = _open(data, name, raw)
            if stream is None:
                continue
            with stream:
                yield from _file_artefacts(raw, stream, name, skipped, budget,
                                           _folder_node(name, tops, sos_tops, files, root_host), own)
            del data
    finally:
        raw.close()


def _folder_node(name: str, tops: set[str], sos_tops: set[str], files: dict[str, bytes],
                 root_host: str | None) -> str | None:
    if root_host:
        return root_host
    if "/" in name:
        top = name.split("/", 1)[0]
        if top.lower() not in NOT_NODE_FOLDERS and top in tops:
            sos = _sos_host(files, top + "/") if top in sos_tops else None
            return sos or top
    return None


def _file_artefacts(raw: RawBundle, stream: IO[bytes], name: str, skipped: list[Skipped], budget: Budget,
                    folder_node: str | None, own: str | None) -> Iterator[Artefact]:
    try:
        head = stream.read(HEAD_BYTES)
        enc = sniff(head)
        if enc is None:
            skipped.append(Skipped(name, "binary file"))
            return
        codec, bom, errors = enc
        node = folder_node
        dec = Decoder(codec, errors, window=budget.window_chars, max_line=budget.max_line_chars)
        blank = True
        for first, text in dec.windows(stream, head[bom:]):
            if text.isspace():  # nothing to read here (a blank window of a larger file is skipped too)
                continue
            blank = False
            if node is None:
                node = _content_node(text[:HEAD_BYTES]) or own or UNKNOWN_NODE
            yield Artefact(path=name, text=text, node=node, node_from_folder=folder_node is not None,
                           line_offset=first - 1)
            del text
        if blank:  # a command that printed nothing (nvidia-smi failed or hung, dmesg restricted): a missing signal, never silence
            skipped.append(Skipped(name, "empty: the command that made it printed nothing (it may have failed)"))
    except _MEMBER_READ_ERRORS as exc:  # a zip member's bad CRC shows once its last byte is read
        raw.skipped.append(Skipped(name, f"unreadable: {exc}"))
        return
    for cut in dec.long_lines:
        raw.hits.append(Hit("max_line_chars", name, cut.line,
                            f"line of {cut.chars:,} characters read as its first {cut.kept:,}"))

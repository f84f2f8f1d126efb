"""YAML in one place: always the safe loader (no tags, no code), libyaml's C version when
the installed PyYAML has it (the pure-Python one dominated start-up time).

What a parse gives is kept as JSON (never pickle: the cache holds data, no code), keyed by the
text's SHA-256, in ``$XDG_CACHE_HOME/gpu-stethoscope/`` (default ``~/.cache``): every ``steth``
run parses the ~470 rule and ~60 knowledge files, ~0.35 CPU s with the C loader (its nodes are
built in C, their Python objects are not), while decoding their JSON takes ~0.02 s. Only data
that JSON gives back exactly is kept (str keys; str, int, float, bool, None, lists, maps: a
timestamp, a set or a NaN is parsed each time). A cache that cannot be read or written is
skipped without a word; ``STETH_YAML_CACHE=0`` turns it off. Line numbers for a rule's errors
come from :func:`load_with_nodes`, which always parses.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import yaml

SafeLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: a cache file holds at most this many entries: past it, only those used by the process that
#: writes it are kept (each edit of a file adds one)
_MAX_ENTRIES = 4000


def _parse(text: str) -> Any:
    return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - SafeLoader / CSafeLoader only


class _JsonCache:
    """Parsed YAML as JSON text by the SHA-256 of the YAML text: in this process (a fresh copy
    each time: json.loads) and in one file, ``<sha256> <json>`` a line, rewritten whole
    (a temporary file, then os.replace) at exit when this process parsed something new."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.entries: dict[str, str] | None = None  # None: not read yet
        self.used: set[str] = set()
        self.dirty = False

    def _file(self) -> Path | None:
        if os.environ.get("STETH_YAML_CACHE", "1") == "0":
            return None
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return Path(base) / "gpu-stethoscope" / f"yaml-{yaml.__version__}-{SafeLoader.__name__}-v1.jsonl"

    def _read(self) -> dict[str, str]:
        self.path = self._file()
        entries: dict[str, str] = {}
        if self.path is not None:
            try:
                raw = self.path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                raw = ""
            for line in raw.splitlines():
                key, _, payload = line.partition(" ")
                if len(key) == 64 and payload:
                    entries[key] = payload
        return entries

    def load(self, text: str) -> Any:
        if self.entries is None:
            self.entries = self._read()
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        payload = self.entries.get(key)
        if payload is not None:
            try:
                data = json.loads(payload)
            except ValueError:  # a damaged line: parse again
                del self.entries[key]
            else:
                self.used.add(key)
                return data
        data = _parse(text)
        try:
            payload = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
            exact = json.loads(payload) == data
        except (TypeError, ValueError, RecursionError):
            exact = False
        if exact:
            self.entries[key] = payload
            self.used.add(key)
            if self.path is not None and not self.dirty:
                self.dirty = True
                atexit.register(self.write)
        return data

    def write(self) -> None:
        if self.path is None or self.entries is None:
            return
        entries = self.entries
        if len(entries) > _MAX_ENTRIES:
            entries = {k: v for k, v in entries.items() if k in self.used}
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text("".join(f"{k} {v}\n" for k, v in entries.items()), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
        self.dirty = False


_CACHE = _JsonCache()


def safe_load(text: str) -> Any:
    """``text`` parsed by the safe loader (the data is the caller's to change)."""
    return _CACHE.load(text)


def load_with_nodes(text: str) -> tuple[Any, yaml.Node | None]:
    """Data and its node tree (for line numbers) from one parse (never cached)."""
    loader = SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return data, node

"""The readers' module-level regular expressions compiled when first used (issue 12, start-up).

The reader modules under facts/parsers compile ~2,000 ``re`` patterns when imported: ~0.5-0.7 CPU s of
every steth start-up (Python's own parse and code generation, ~0.25 ms a pattern), though a bundle's
files use a few hundred of them (a bench node's 20 files: ~100; rules and the classifier none: the
classifier builds its RE2 set from the signatures' sources and flags). :func:`install` makes
``re.compile`` called by the module-level code of a ``stethoscope.facts.parsers`` module return a
:class:`LazyPattern`, which compiles on its first search, match or other use and answers ``pattern`` and
``flags`` without compiling; every other caller of ``re.compile`` gets what it always got. Forked parse
workers compile the patterns their files use (a bench node's: ~25 ms a worker), the parent no longer
compiles every reader's.

A LazyPattern passes ``isinstance(p, re.Pattern)`` (its ``__class__`` is re.Pattern's, as
unittest.mock's specs do), so the ``re`` module's functions take it as a compiled pattern and call its
methods; it pickles and copies as the compiled pattern does. Its methods are the compiled pattern's own
bound methods, kept on it once compiled (no forwarding call per search: a bench node's reading costs the
same instructions). It stays the object its module holds: a reader that tells its patterns apart by
identity (subprocess_error: ``pattern is _UCX_SIGNAL_BARE`` over a tuple of them) still can; but a match's
``m.re`` is the compiled pattern, equal to it, not it: ``m.re == _X``, never ``m.re is _X`` (tests/test_lazy_re.py
looks for the latter in every reader). A pattern that does not
compile raises ``re.error`` where it is first used: tests/test_lazy_re.py compiles every reader
module's patterns and compares each one's flags with the compiled pattern's.
"""
from __future__ import annotations

import re
import sys
from typing import Any

_compile = re.compile
#: the modules whose module-level patterns are made lazy
_PREFIX = "stethoscope.facts.parsers."
#: leading global flags, e.g. "(?m)" or "(?is)": Python 3.11 allows global flags only at a pattern's start
_LEADING_FLAGS = _compile(r"\(\?([aiLmsux]+)\)")
_LETTERS = {"a": re.ASCII, "i": re.IGNORECASE, "L": re.LOCALE, "m": re.MULTILINE, "s": re.DOTALL,
            "u": re.UNICODE, "x": re.VERBOSE}
#: the compiled pattern's attributes kept on a LazyPattern once compiled
_KEPT = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner",
         "groupindex", "groups")


def _flags_of(pattern: str, flags: int) -> int | None:
    """What ``re.compile(pattern, flags).flags`` gives, read off the pattern's leading global flags; None
    where that is not sure (another global flag group later in the pattern, LOCALE, DEBUG or bytes)."""
    if type(pattern) is not str or flags & (re.LOCALE | re.DEBUG):
        return None
    pos = 0
    while m := _LEADING_FLAGS.match(pattern, pos):
        for ch in m[1]:
            flags |= _LETTERS[ch]
        pos = m.end()
    if flags & re.LOCALE or _LEADING_FLAGS.search(pattern, pos) is not None:
        return None  # (a flag group later on: inside a class, escaped, or an error compile reports)
    if not flags & re.ASCII:
        flags |= re.UNICODE
    return flags


class _Compiled:
    """A compiled pattern's attribute on a LazyPattern not compiled yet: compiles it (a non-data descriptor:
    once compiled, the instance's own copy of the attribute is found first)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return getattr(obj.compiled(), self.name)


class LazyPattern:
    """A ``re.Pattern`` compiled on first use (see the module's docstring)."""

    __slots__ = ("pattern", "_flags", "_compiled", "_known", "__dict__")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern | None = None
        self._known: int | None = None

    def compiled(self) -> re.Pattern:
        """The compiled pattern (compiled now, once); this object then keeps its bound methods (a search
        is a call of the compiled pattern's own method, found in this object's dict)."""
        c = self._compiled
        if c is None:
            c = _compile(self.pattern, self._flags)
            d = self.__dict__
            for name in _KEPT:
                d[name] = getattr(c, name)
            self._compiled = c
        return c

    @property
    def flags(self) -> int:
        known = self._known
        if known is None:
            known = _flags_of(self.pattern, self._flags)
            if known is None:
                known = self.compiled().flags
            self._known = known
        return known

    @property
    def __class__(self) -> type:  # isinstance(p, re.Pattern) holds
        return re.Pattern

    def __reduce__(self) -> tuple:
        return re._compile, (self.pattern, self._flags)  # (as a compiled pattern pickles: re.compile is _lazy_compile now)

    def __copy__(self) -> LazyPattern:  # (a compiled pattern's copies are itself)
        return self

    def __deepcopy__(self, memo: dict) -> LazyPattern:
        return self

    def __eq__(self, other: object) -> bool:
        return self.compiled() == (other.compiled() if type(other) is LazyPattern else other)

    def __hash__(self) -> int:
        return hash(self.compiled())

    def __repr__(self) -> str:
        return repr(self.compiled())


for _name in _KEPT:
    _attr = _Compiled()
    _attr.__set_name__(LazyPattern, _name)
    setattr(LazyPattern, _name, _attr)
del _name, _attr


def _lazy_compile(pattern: Any, flags: int = 0) -> Any:
    """``re.compile``, made lazy where a reader module's own code at its top level calls it."""
    if type(pattern) is str and not flags & re.DEBUG:
        frame = sys._getframe(1)
        code = frame.f_code.co_name
        if code != "<module>" and code in ("<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>"):
            frame = frame.f_back  # a comprehension at the module's top level
            code = frame.f_code.co_name if frame is not None else ""
        if code == "<module>" and frame.f_globals.get("__name__", "").startswith(_PREFIX):
            return LazyPattern(pattern, flags)
    return _compile(pattern, flags)


def install() -> None:
    """Make the reader modules' module-level ``re.compile`` lazy (idempotent)."""
    if re.compile is not _lazy_compile:
        re.compile = _lazy_compile

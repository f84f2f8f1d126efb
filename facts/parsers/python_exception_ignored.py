"""CPython's report of an exception it could not raise and so ignored, in any program's output: the unraisable hook
(Python/errors.c ``_PyErr_WriteUnraisableDefaultHook``, 3.8+; ``PyErr_WriteUnraisable`` before) prints the object in
whose call it was raised, then its traceback and exception line, and the program goes on. Raised in an object's
finaliser (``__del__``; Cython's ``__dealloc__``), an atexit callback (Modules/atexitmodule.c: "in atexit callback"), a
ctypes callback (Modules/_ctypes/callbacks.c: "on calling ctypes callback function"), a weakref callback. Sample lines
(real, from the public threads named)::

    Exception ignored in: <function Connection.__del__ at 0x7ba85ba82980>
    Traceback (most recent call last):
      File "/usr/local/lib/python3.13/site-packages/firebird/driver/core.py", line 1798, in __del__
        warn(f"Connection '{self.logging_id}' disposed without prior close()", ResourceWarning)
    AttributeError: 'Connection' object has no attribute 'logging_id'
        (FirebirdSQL/python3-driver#48, Python 3.13)
    Exception ignored in: <bound method _DataLoaderIter.__del__ of <torch.utils.data.dataloader._DataLoaderIter object at 0x000001B2B3182EF0>>
        (leftthomas/ESPCN#22, Python 3.6: the bound-method form of 3.4-3.7)
    ^CException ignored in: <bound method _DataLoaderIter.__del__ of <torch.utils.data.dataloader._DataLoaderIter object at 0x7f87c6c81898>>
        (MILVLG/mmnas#8: the run interrupted from the terminal; two workers' blocks interleaved, cut at the paste's end)
    ^CException ignored in atexit callback: <_final_semaphore_cleanup>
        (drussell23/JARVIS#70152, 3.12's atexit form; 3.13 writes "Exception ignored in atexit callback <function f at 0x...>:")

and Python 2's one-line form (CONSTRUCTED from Python 2.7's PyErr_WriteUnraisable format,
``Exception %s: %s in %s ignored``)::

    Exception AttributeError: "'NoneType' object has no attribute 'info'" in <bound method Parameters.__del__ of <p.Parameters object at 0x238e490>> ignored

What it establishes: an exception was raised where Python could not pass it to the caller, most often while the
program was tearing down after its own failure (an object whose ``__init__`` failed has no attribute its ``__del__``
uses; a DataLoader's workers gone after an interrupt or a crash): the failure's echo, not the failure. Alone, it is an
error nobody explains, unless its exception line is a known one (a CUDA error there is the CUDA error reader's fact
on the same line).

Facts: ``python_exception_ignored`` per block: what raised (the qualified name), the context, the exception's type and
message; the fact cites the exception line (its words say what failed), its "Traceback" line where the traceback is cut
before it, or the block's first line where no traceback follows.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import PythonExceptionIgnored  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "python_exception_ignored"

# Exception ignored in: <function Connection.__del__ at 0x7ba85ba82980>                     (3.8+)
# Exception ignored in: <bound method _DataLoaderIter.__del__ of <... object at 0x...>>      (3.4-3.7)
# ^CException ignored in atexit callback: <_final_semaphore_cleanup>                         (3.8-3.12's atexit)
# Exception ignored in atexit callback <function f at 0x7f0e0c8b9e40>:                       (3.13's PyErr_FormatUnraisable)
# Exception ignored on calling ctypes callback function: <function cb at 0x7f1b2c3d4e50>     (_ctypes/callbacks.c)
# Exception ignored while calling deallocator <function Foo.__del__ at 0x7f0e0c8b9e40>:      (3.14's wording)
# Exception ignored in: 'cupy.cuda.memory.PooledMemory.__dealloc__'                          (Cython's __dealloc__)
HEADER = re.compile(
    r"^(?P<lead>\^C|[^\S\n]{0,8})Exception ignored (?P<how>in: |in atexit callback:? |on calling ctypes callback function:? "
    r"|while calling deallocator |while finalizing [\w ]{1,40}?:? )(?P<obj>[^\n]{1,400}?):?[^\S\n]*$", re.M)
# Exception AttributeError: "'NoneType' object has no attribute 'info'" in <bound method Parameters.__del__ of <...>> ignored   (Python 2)
PY2 = re.compile(r"^(?P<lead>\^C|[^\S\n]{0,8})Exception (?P<type>[A-Za-z_][\w.]{0,80}): (?P<msg>[^\n]*?) in (?P<obj><[^\n]+>) ignored[^\S\n]*$", re.M)
# <function Connection.__del__ at 0x...> / <bound method _DataLoaderIter.__del__ of <...>> / 'cupy...PooledMemory.__dealloc__'
_QUALNAME = re.compile(r"^<(?:function|bound method|method) (?P<q>[\w.<>]{1,200}?)(?: at 0x| of |>)|^'(?P<c>[\w.]{1,200})'$")
# AttributeError: 'Connection' object has no attribute 'logging_id' / torch.cuda.OutOfMemoryError: ... / KeyboardInterrupt
_EXCEPTION_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]{0,120}?(?:Error|Exception|Interrupt|Exit|Warning|Failure|Stop\w*)|[A-Z]\w{2,60}Error)(?::[^\S\n]*(?P<msg>[^\n]*?))?[^\S\n]*$")
_TRACEBACK = "Traceback (most recent call last):"
#: how far a block's traceback is looked through for its exception line
_FRAMES = 400


def detect(head: str) -> bool:
    return ("Exception ignored " in head and HEADER.search(head) is not None) or (" ignored" in head and PY2.search(head) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    text = artefact.text
    if "Exception ignored " not in text and not (" ignored" in text and "Exception " in text):
        return result
    lines = artefact.lines
    line_of = artefact.line_of
    blocks = []
    for m in HEADER.finditer(text):
        blocks.append((line_of(m.start()), m["lead"], m["how"], m["obj"], None, None))
    for m in PY2.finditer(text):
        blocks.append((line_of(m.start()), m["lead"], "in: ", m["obj"], m["type"], m["msg"]))
    heads = {ln for ln, *_ in blocks}
    for ln, lead, how, obj, etype, emsg in sorted(blocks):
        at, cut = ln, False
        if etype is None:
            at, etype, emsg, cut = _exception_after(lines, ln, heads)
            # a traceback cut before its exception line: its "Traceback" line is the block's failure line
            at = at or (ln + 1 if cut else ln)
        target, context = _target(how, obj.strip())
        emsg = (emsg or "").strip().strip('"') or None
        said = f"{etype}: {emsg}" if etype and emsg else (etype or "its exception line cut off")
        message = (f"an exception in {target} ({context}) that Python reported and ignored: {said}"
                   + ("; the run was interrupted (^C)" if lead == "^C" else ""))
        result.lines_used += 1
        b.add(PythonExceptionIgnored, at, context=context, target=target, exception_type=etype, exception_message=emsg,
              cut=cut, interrupted=lead == "^C", message=message[:400])
    return result


def _target(how: str, obj: str) -> tuple[str, str]:
    """What raised (its qualified name where the object's repr gives one) and in which context."""
    q = _QUALNAME.search(obj)
    name = (q["q"] or q["c"]) if q is not None else obj[:120]
    if "atexit" in how:
        return name, "atexit"
    if "ctypes" in how:
        return name, "ctypes_callback"
    if "deallocator" in how or "finalizing" in how or name.endswith(("__del__", "__dealloc__")):
        return name, "finaliser"
    return name, "other"


def _exception_after(lines: list[str], ln: int, heads: set[int]) -> tuple[int | None, str | None, str | None, bool]:
    """The exception line of the traceback after the header at ``ln`` (1-based): (its line, type, message, cut)."""
    if ln >= len(lines) or lines[ln].strip() != _TRACEBACK:
        return None, None, None, False  # no traceback printed (or another layout): the header alone
    for k in range(ln + 2, min(ln + 1 + _FRAMES, len(lines)) + 1):  # 1-based, after the Traceback line
        text = lines[k - 1]
        if k in heads:
            return None, None, None, True  # another block began inside this one (two processes' output interleaved)
        if not text.strip() or text[:1] in " \t" or set(text.strip()) <= set("^~ "):
            continue  # a frame, its source line, a blank, the 3.11+ caret line
        if (e := _EXCEPTION_LINE.match(text.strip())) is not None:
            return k, e["type"], e["msg"], False
        return None, None, None, True  # the traceback ends in a line that is no exception line (a paste cut, other output)
    return None, None, None, True


#: line signatures (facts/classify.py)
SIGNATURES = (r"(?m)^(?:\^C|[^\S\n]{0,8})Exception ignored (?:in|on calling ctypes callback function|while calling deallocator|while finalizing)\b",)

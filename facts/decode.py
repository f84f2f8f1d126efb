"""Bytes of a file -> its text, one window of whole lines at a time.

The encoding is found from the head of the file: a byte-order mark (UTF-8, UTF-16 or UTF-32,
either byte order), else the pattern of NUL bytes that UTF-16 and UTF-32 text without a mark
has (ASCII text as UTF-16-LE: ``N\\0V\\0R\\0M\\0``), else UTF-8; a head that is not UTF-8 and
holds no UTF-8 multi-byte sequence at all is Latin-1 (every byte a character), a mostly
UTF-8 one keeps UTF-8 with U+FFFD for its bad bytes. NUL bytes in any other pattern: binary.

Text is decoded incrementally (``codecs`` incremental decoders) and handed out as windows of
whole lines (``\\r\\n`` read as ``\\n``, so that CRLF files parse like any other; a lone ``\\r``
stays); a line longer than ``max_line`` characters is cut there, the rest of it skipped and
reported, so that a 250 MiB line costs no more than any other.
"""
from __future__ import annotations

import codecs
from dataclasses import dataclass, field
from typing import BinaryIO, Iterator

_BOMS = (  # longest first: the UTF-32-LE mark begins with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
)
CHUNK_BYTES = 1 << 20


def _nul_share(head: bytes, phase: int, step: int) -> float:
    part = head[phase::step]
    return part.count(0) / len(part) if part else 0.0


def _wide(head: bytes) -> str | None:
    """UTF-16/32 without a mark, from where the NULs of its (mostly ASCII) characters fall."""
    h = head[: len(head) - len(head) % 4]
    if len(h) < 8:
        return None
    s = [_nul_share(h, i, 4) for i in range(4)]
    if s[1] > 0.9 and s[2] > 0.9 and s[3] > 0.9 and s[0] < 0.5:
        return "utf-32-le"
    if s[0] > 0.9 and s[1] > 0.9 and s[2] > 0.9 and s[3] < 0.5:
        return "utf-32-be"
    even, odd = _nul_share(h, 0, 2), _nul_share(h, 1, 2)
    if odd > 0.7 and even < 0.1:
        return "utf-16-le"
    if even > 0.7 and odd < 0.1:
        return "utf-16-be"
    return None


def sniff(head: bytes) -> tuple[str, int, str] | None:
    """(codec, bytes of mark to skip, errors policy) for a file starting with ``head``; None: binary."""
    for bom, enc in _BOMS:
        if head.startswith(bom):
            body = head[len(bom):]
            if enc.startswith("utf-8") or _plausible(body, enc):
                return enc, len(bom), "replace"
    if b"\x00" in head[:8192]:
        enc = _wide(head[:8192])
        return (enc, 0, "replace") if enc else None
    dec = codecs.getincrementaldecoder("utf-8")("strict")
    try:
        dec.decode(head, final=False)
        return "utf-8", 0, "replace"
    except UnicodeDecodeError:
        pass
    text = head.decode("utf-8", "replace")
    good = sum(1 for c in text if ord(c) > 0x7F and c != "\ufffd")
    return ("utf-8", 0, "replace") if good and good >= text.count("\ufffd") else ("latin-1", 0, "strict")


def _plausible(body: bytes, enc: str) -> bool:
    """A UTF-16/32 mark followed by text in that encoding (b"\\xff\\xfe caf\\xe9" is Latin-1)."""
    if not body:
        return True
    try:
        text = body[: 4096 - 4096 % 4].decode(enc, "strict")
    except UnicodeDecodeError:
        return False
    printable = sum(1 for c in text if c.isprintable() or c in "\t\r\n")
    return printable >= 0.9 * len(text)


@dataclass
class LongLine:
    line: int  # 1-based line of the file
    chars: int  # its length as read
    kept: int


@dataclass
class Decoder:
    """Feeds bytes, gives windows of whole lines; ``long_lines`` lists the lines it cut."""

    encoding: str
    errors: str = "replace"
    window: int = 32 << 20
    max_line: int = 1 << 20
    long_lines: list[LongLine] = field(default_factory=list)

    def windows(self, stream: BinaryIO, first: bytes = b"") -> Iterator[tuple[int, str]]:
        """(1-based first line, text) of each window; every window but the last ends with "\\n"."""
        dec = codecs.getincrementaldecoder(self.encoding)(self.errors)
        parts: list[str] = []
        size = 0
        line = 1  # the window's first line
        newlines = 0  # newlines in ``parts``
        open_len = 0  # characters of the last, unterminated line so far
        cut: LongLine | None = None  # the line being skipped past its cut
        data = first or stream.read(CHUNK_BYTES)
        while True:
            final = not data
            text = dec.decode(data, final=final)
            if "\r" in text:
                text = text.replace("\r\n", "\n")
            if cut is not None and text:
                nl = text.find("\n")
                cut.chars += len(text) if nl == -1 else nl
                text = "" if nl == -1 else text[nl:]
                if nl != -1:
                    cut, open_len = None, 0
            if text:
                last = text.rfind("\n")
                tail = len(text) - last - 1
                grown = open_len + len(text) if last == -1 else tail
                if grown > self.max_line:
                    keep = self.max_line - (open_len if last == -1 else 0)
                    cut = LongLine(line=line + newlines + text.count("\n"), chars=grown, kept=self.max_line)
                    self.long_lines.append(cut)
                    text = text[: len(text) - grown + self.max_line] if last != -1 else text[:max(0, keep)]
                    open_len = self.max_line
                else:
                    open_len = grown
                parts.append(text)
                size += len(text)
                newlines += text.count("\n")
            if size >= self.window and newlines:
                joined = "".join(parts)
                end = joined.rfind("\n") + 1
                out, rest = joined[:end], joined[end:]
                yield line, out
                line += newlines
                parts, size, newlines = ([rest] if rest else []), len(rest), 0
            if final:
                if size:
                    yield line, "".join(parts)
                return
            data = stream.read(CHUNK_BYTES)

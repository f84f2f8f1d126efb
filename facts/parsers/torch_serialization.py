"""PyTorch's checkpoint serializer failing to write, or its reader (or safetensors') failing to read what should be a
checkpoint, in any program's output (torch.save and torch.load, and the checkpoint engines on top of
them: DeepSpeed's, Lightning's, Megatron's torch format), so it is looked for anywhere in a file.

torch.save writes a zip archive through ``PyTorchStreamWriter`` (caffe2/serialize/inline_container.cc).
Its write callback counts the bytes the file stream took; a short write (the stream failed: the
file system full or over quota, an I/O error, a network or FUSE mount dropping the write) marks the
archive bad, and ``valid()`` then throws ``"PytorchStreamWriter failed " what info ": "
mz_zip_get_error_string(err)`` (``writing file <record>``, miniz's ``file write failed``) or, with no
miniz error, ``... failed writing file <record>.``; ``writing central directory for archive <name>``
when it is the end of the archive. The writer's position then lags the archive's, so the next write
(torch.save's ``__exit__`` finishing the archive) throws ``"unexpected pos " current " vs " offset``:
the same failure, said again. Sample lines (real)::

    RuntimeError: [enforce fail at inline_container.cc:471] . PytorchStreamWriter failed writing file data/3: file wr    (zai-org/ChatGLM-6B#1166, DeepSpeed saving optimizer states; the excerpt cut there)
    [rank0]: RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file data.pkl: file write failed    (SWivid/F5-TTS#458)
    RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 155797120 vs 155797008    (a public repository's notes of a torch.save crash)

torch.load reads the archive through ``PyTorchStreamReader``, whose ``valid()`` throws ``"PytorchStreamReader
failed " what info ": " mz_zip_get_error_string(err)``: ``reading zip archive: failed finding central
directory`` when the archive's end record is missing (the file was cut short: a save that failed or was
interrupted, an unfinished copy or download), ``reading file data/0: invalid header or archive is
corrupted`` and the like for damage inside it. Sample lines (real, public repositories quoting them)::

    RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory

safetensors' reader (huggingface/safetensors, ``SafeTensors::read_metadata`` under ``safe_open`` and ``load_file``,
so under transformers, diffusers and vLLM loading weights) throws, through its Python binding, ``"Error while
deserializing header: {e}"``: before 0.6 ``{e:?}``, the error's variant name (``HeaderTooLarge``,
``MetadataIncompleteBuffer``, ``InvalidOffset("name")``), from 0.6 (safetensors#616) its Display text (``header too
large``, ``incomplete metadata, file not fully covered``). The header is the file's first bytes: a length in 8 bytes,
then that much JSON naming each tensor's offsets, which must end at the file's end. A file cut short fails the length or
the offsets (``InvalidHeaderLength``, ``MetadataIncompleteBuffer``; ``HeaderTooSmall`` under 8 bytes); a file that is no
safetensors file at all (a Git LFS pointer, whose first 8 bytes ``version `` read as a length of 2.3e18; an HTML page a
failed download saved) fails ``HeaderTooLarge`` (over 100 MB), as does, rarely, a real header that large (over a
million tensors: safetensors/safetensors#668). Sample lines (real)::

    safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge    (huggingface/diffusers#5520, OpenMotionLab/MotionGPT3#4)
    safetensors_rust.SafetensorError: Error while deserializing header: header too large    (safetensors/safetensors#668, 0.6.2)

Facts: ``torch_save_write_failed`` per line: the step (``writing_file``, ``writing_central_directory``,
``unexpected_pos``), the record and miniz's error text; ``torch_load_archive_unreadable`` per reader
failure: what it was doing and miniz's error text; ``safetensors_header_unreadable`` per safetensors header error: the
variant and what follows it. Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import SafetensorsHeaderUnreadable, TorchLoadArchiveUnreadable, TorchSaveWriteFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines

KIND = "torch_serialization"

# RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file data.pkl: file write failed
# RuntimeError: [enforce fail at inline_container.cc:471] . PytorchStreamWriter failed writing file data/3: file wr   (cut by the paste)
# PytorchStreamWriter failed writing central directory for archive archive: file write failed   (valid()'s other call, filled in)
_WRITER = re.compile(
    r"PytorchStreamWriter failed writing (?:(?P<file>file )|(?P<dir>central directory for archive ))"
    r"(?P<record>[^\s:]{1,300}?)(?:: (?P<detail>[^\n]{1,120})|\.?[ \t]*\r?$)", re.M)
# RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 155797120 vs 155797008
# RuntimeError: [enforce fail at inline_container.cc:659] .unexpected pos 2387758464 vs 2387758376    (verl-project/verl#3346, its title)
#   only as inline_container.cc's throw (the enforce text names the file): the words alone are no such event. c10's
#   enforce message is "[enforce fail at " file ":" line "] " condition ". " msg (an empty condition here); a title
#   or a retyped paste drops or moves the blanks around the ".", so they are optional
_POS = re.compile(r"inline_container\.cc:\d{1,6}\] ?\. ?unexpected pos \d{1,20} vs \d{1,20}")
# RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory
# RuntimeError: PytorchStreamReader failed reading file data/0: invalid header or archive is corrupted   (valid()'s reading call, filled in)
_READER = re.compile(
    r"PytorchStreamReader failed (?P<step>reading zip archive|(?:reading|locating) file [^\s:]{1,300})(?:: (?P<detail>[^\n]{1,120}))?")
# safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge    (huggingface/diffusers#5520; < 0.6, {e:?})
# safetensors_rust.SafetensorError: Error while deserializing header: header too large    (safetensors/safetensors#668; 0.6.2, {e})
# Error while deserializing header: MetadataIncompleteBuffer / InvalidOffset("model.embed.weight") / InvalidHeaderDeserialization
# Error while deserializing header: incomplete metadata, file not fully covered / invalid JSON in header: EOF while parsing ...
#   (safetensors/src/tensor.rs: the enum's variants, and the Display texts of #616; IoError and JsonError, read
#   elsewhere or no header's, and TensorNotFound, InvalidTensorView and MisalignedSlice, not thrown by read_metadata, not
#   read). The variant ends at a word's end; what follows it is its detail
_SAFETENSORS = re.compile(
    r"Error while deserializing header: (?P<err>HeaderTooLarge|HeaderTooSmall|InvalidHeaderLength|MetadataIncompleteBuffer"
    r"|InvalidHeaderStart|InvalidHeaderDeserialization|InvalidHeader|TensorInvalidInfo|InvalidOffset|ValidationOverflow"
    r"|header too large|header too small|invalid header length|incomplete metadata, file not fully covered"
    r"|invalid UTF-8 in header|invalid JSON in header|invalid shape, data type, or offset for tensor|invalid offset for tensor"
    r"|overflow computing buffer size from shape and/or element type)\b(?P<detail>[^\n]{0,200})")
_SAFETENSORS_ERROR = {
    "HeaderTooLarge": "header_too_large", "header too large": "header_too_large",
    "HeaderTooSmall": "header_too_small", "header too small": "header_too_small",
    "InvalidHeaderLength": "invalid_header_length", "invalid header length": "invalid_header_length",
    "MetadataIncompleteBuffer": "metadata_incomplete_buffer",
    "incomplete metadata, file not fully covered": "metadata_incomplete_buffer",
    "InvalidHeader": "invalid_header", "invalid UTF-8 in header": "invalid_header",
    "InvalidHeaderStart": "invalid_header_start",
    "InvalidHeaderDeserialization": "invalid_header_deserialization", "invalid JSON in header": "invalid_header_deserialization",
    "TensorInvalidInfo": "tensor_invalid_info", "invalid shape, data type, or offset for tensor": "tensor_invalid_info",
    "InvalidOffset": "invalid_offset", "invalid offset for tensor": "invalid_offset",
    "ValidationOverflow": "validation_overflow",
    "overflow computing buffer size from shape and/or element type": "validation_overflow",
}
_MARK = re.compile(r"PytorchStreamWriter failed writing |unexpected pos \d|PytorchStreamReader failed |Error while deserializing header: ")


def detect(head: str) -> bool:
    return ("PytorchStreamWriter failed writing " in head and _WRITER.search(head) is not None) or (
        "unexpected pos " in head and _POS.search(head) is not None) or (
        "PytorchStreamReader failed " in head and _READER.search(head) is not None) or (
        "Error while deserializing header: " in head and _SAFETENSORS.search(head) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines(_MARK, artefact):
        if m := _WRITER.search(line):
            step = "writing_file" if m["file"] else "writing_central_directory"
            detail = m["detail"].strip() if m["detail"] else None
            fb.add(TorchSaveWriteFailed, n, step=step, record=m["record"], detail=detail)
        elif _POS.search(line):
            fb.add(TorchSaveWriteFailed, n, step="unexpected_pos")
        elif m := _READER.search(line):
            fb.add(TorchLoadArchiveUnreadable, n, step=m["step"], detail=m["detail"].strip() if m["detail"] else None)
        elif m := _SAFETENSORS.search(line):
            detail = m["detail"].strip(" :()\t\r") or None
            fb.add(SafetensorsHeaderUnreadable, n, error=_SAFETENSORS_ERROR[m["err"]], detail=detail)
        else:
            continue
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"PytorchStreamWriter failed writing ", r"inline_container\.cc:\d+\] ?\. ?unexpected pos ",
              r"PytorchStreamReader failed (?:reading zip archive|reading file |locating file )",
              r"Error while deserializing header: (?:[A-Z][a-z]+[A-Z]|header too |invalid |incomplete metadata|overflow computing)")

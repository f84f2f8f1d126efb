"""DeepSpeed's async I/O library (csrc/aio: ZeRO-Infinity's NVMe offload, the swap files of parameters, gradients and
optimizer state) refusing to read a swap file whose size on disk is not the tensor buffer's, looked for anywhere in a
file: the ranks print it on their stdout and stderr among the training's own lines, often interleaved.

deepspeed_aio_handle_t::pread (csrc/aio/py_lib/deepspeed_py_aio_handle.cpp, since its first release; the same
check in deepspeed_py_aio.cpp's deepspeed_py_aio_read): ``std::cout << filename << ": buffer nbytes != file bytes "
<< buffer_bytes << " != " << num_file_bytes << std::endl;`` then ``assert(static_cast<long long int>(buffer.nbytes())
== num_file_bytes);``, glibc's assert message (``<program>: <file>:<line>: <function>: Assertion `<expr>' failed.``)
and SIGABRT. Sample content (real)::

    /nvme/zero_stage_3/fp16params/rank24/0_param.tensor.swp: buffer nbytes != file bytes 28824000 != 28311552
    python: /usr/local/lib/python3.6/dist-packages/deepspeed/ops/csrc/aio/py_lib/deepspeed_py_aio_handle.cpp:223: int deepspeed_aio_handle_t::pread(const at::Tensor&, const char*, bool, bool): \\
    Assertion `static_cast<long long int>(buffer.nbytes()) == num_file_bytes' failed.
        (deepspeedai/DeepSpeed#1070: the async write of a tensor's last part that is not a multiple of the NVMe's
        512-byte block never reached the file, 28824000 - 28311552 bytes short; fixed in DeepSpeed)
    python: /usr/local/lib/python3.8/dist-packages/deepspeed/ops/csrc/aio/py_lib/deepspeed_py_aio_handle.cpp:228: int deepspeed_aio_handle_t::pread(const at::Tensor&, const char*, bool, bool): Assertion `static_cast<long long int>(buffer.nbytes()) == num_file_bytes' failed.
        (deepspeedai/DeepSpeed#3376: eight ranks' lines interleaved)

Facts: ``offload_swap_size_mismatch`` per size report (the file, the buffer's and the file's sizes, where the line
keeps them whole) and per assert line of that check (``assertion``). Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import OffloadSwapSizeMismatch
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with

KIND = "deepspeed_aio"

# /nvme/zero_stage_3/fp16params/rank24/0_param.tensor.swp: buffer nbytes != file bytes 28824000 != 28311552   (#1070)
# ../../workspace/zero_stage_3/fp16params/rank3/1_param.tensor.swp: buffer nbytes != file bytes 16777216 != 8388608  (#2006)
_SIZES = re.compile(r"(?:(?P<path>[^\s:]{1,400}): )?buffer nbytes != file bytes (?:(?P<buf>\d{1,20}) != (?P<file>\d{1,20})\b)?")
# ...deepspeed_py_aio_handle.cpp:223: int deepspeed_aio_handle_t::pread(...): Assertion `static_cast<long long int>(buffer.nbytes()) == num_file_bytes' failed.
_ASSERT = re.compile(r"Assertion `static_cast<long long int>\(buffer\.nbytes\(\)\) == num_file_bytes' failed")


def detect(head: str) -> bool:
    return "buffer nbytes != file bytes" in head or ("num_file_bytes' failed" in head and _ASSERT.search(head) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in iter_lines_with(("buffer nbytes != file bytes", "num_file_bytes' failed"), artefact):
        m = _SIZES.search(line)
        if m is not None:
            result.lines_used += 1
            fb.add(OffloadSwapSizeMismatch, n, path=m["path"], buffer_bytes=int(m["buf"]) if m["buf"] else None,
                   file_bytes=int(m["file"]) if m["file"] else None, message=line.strip()[:400])
            continue
        if _ASSERT.search(line) is not None:
            result.lines_used += 1
            fb.add(OffloadSwapSizeMismatch, n, assertion=True, message=line.strip()[:400])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"buffer nbytes != file bytes", r"num_file_bytes' failed")

"""UCX's CUDA transports (cuda_copy, cuda_ipc, the cuda base of UCX's uct layer) logging a failed CUDA driver or runtime
call, on stderr of any program that uses UCX with GPU memory (dask-cuda and UCX-Py, Open MPI's pml ucx, NIXL, Spark's
RAPIDS shuffle), so such lines are looked for anywhere in a file.

UCX wraps its CUDA calls in macros whose message changed over the releases (src/uct/cuda/base/cuda_iface.h; the call
as UCS_PP_MAKE_STRING wrote it, then cudaGetErrorString's or cuGetErrorString's text)::

    v1.4-1.8:   UCT_CUDA_FUNC, UCT_CUDADRV_FUNC   ucs_error("%s is failed. ret:%s", <call>, <text>)
    v1.9-1.15:  UCT_CUDA_FUNC, UCT_CUDADRV_FUNC   ucs_log(level, "%s() failed: %s", <call>, <text>)   ('<call>(args)()')
    v1.16-:     UCT_CUDADRV_FUNC, UCT_CUDADRV_LOG ucs_log(level, "%s failed: %s", <call>, <text>)
    v1.15-:     cuda_copy_md.c                    ucs_error("cuMemGetAddressRange(%p) error: %s", address, <text>)

Sample lines (real, from the public threads named)::

    [1556919196.384583] [dgx15:37091:0]    cuda_ipc_md.c:62   UCX  ERROR cuCtxGetDevice(&cu_device) is failed. ret:invalid device context   (rapidsai/ucx-py#102)
    cuda_copy_md.c:265  UCX  ERROR   cuMemAlloc_v2((CUdeviceptr*)address_p, *length_p)() failed: invalid device context   (openucx/ucx#9356, before)
    cuda_copy_md.c:265  UCX  ERROR   cuMemAlloc_v2((CUdeviceptr*)address_p, *length_p) failed: invalid device context     (openucx/ucx#9356, after)
    [1774611987.873495] [kolmogorov:2952803:0]    cuda_copy_md.c:688  UCX  ERROR cuMemGetAddressRange(0x75e0ba800000) error: named symbol not found   (xcompact3d/x3d2#292)

UCX's failure to use the remote key of a peer's GPU buffer that follows such a call (src/ucp/core/ucp_rkey.c: v1.6
``"Failed to unpack remote key from remote md[%d]: %s"``, v1.8- ``"failed to unpack remote key ..."``, the uct status:
UCS_ERR_IO_ERROR "Input/output error" for a failed CUDA call) is the call's consequence, read with it::

    [1556919196.384605] [dgx15:37091:0]       ucp_rkey.c:250  UCX  ERROR Failed to unpack remote key from remote md[5]: Input/output error   (rapidsai/ucx-py#102)

Facts: ``cuda_error`` (form ``ucx_call``, ``api_call`` the function, the node of UCX's ``[host:pid:tid]`` prefix) per
error line whose text is an entry of the CUDA catalogue (knowledge/cuda_errors.yaml, read in the API of the call: a
``cu*`` call's as the driver's CUresult, a ``cuda*`` call's as the runtime's), once per node, call and error; the CUDA
error catalogue judges it. A WARN line (UCX goes on), a text the catalogue does not hold (uct_cuda_base_cu_get_error_string's
"unrecognized error code %d") or a call the ucx_log reader owns (cuIpcOpenMemHandle, with its cache's fatal message)
makes no fact. Empty input, or no such line: nothing.
"""
from __future__ import annotations

import re
from functools import lru_cache

from stethoscope.facts.kinds.app import CudaError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers import cuda_error_catalogue as catalogue
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_lines_with, lines_with

KIND = "ucx_cuda_call"

# ... cuda_ipc_md.c:62   UCX  ERROR cuCtxGetDevice(&cu_device) is failed. ret:invalid device context        (rapidsai/ucx-py#102)
# ... cuda_copy_md.c:265  UCX  ERROR   cuMemAlloc_v2((CUdeviceptr*)address_p, *length_p)() failed: invalid device context   (openucx/ucx#9356)
# ... cuda_copy_md.c:688  UCX  ERROR cuMemGetAddressRange(0x75e0ba800000) error: named symbol not found   (xcompact3d/x3d2#292)
#   (the arguments a bounded lazy run: they hold parentheses of their own, "(&(key->d_bptr), (CUdeviceptr) addr)";
#   the text the rest of the line, greedy and not anchored, its blanks taken off in Python: a lazy text before "$"
#   tried every length after every length of the arguments, 0.4 s on bench/redos.py's 120,000-character variants)
_CALL = re.compile(r"\bUCX\s{1,4}ERROR\s{1,4}(?P<call>cu(?:da)?[A-Z]\w{0,60})(?:\([^\n]{0,300}?\))?(?:\(\))? "
                   r"(?:is failed\. ret:|failed: |error: )(?P<msg>[^\n]{1,150})")
# ... ucp_rkey.c:250  UCX  ERROR Failed to unpack remote key from remote md[5]: Input/output error   (rapidsai/ucx-py#102)
_RKEY = re.compile(r"\bUCX\s{1,4}ERROR\s{1,4}[Ff]ailed to unpack remote key from remote md\[\d{1,3}\]: [A-Za-z]")
# ... [dgx15:37091:0] ...   (ucs_log's "[host:pid:thread]" prefix; a timestamp in brackets may come first)
_HOST = re.compile(r"\[(?P<host>(?!\d{1,63}:)[A-Za-z0-9][\w.-]{0,62}):\s{0,8}\d{1,10}\s{0,8}:\d{1,6}(?::\d{1,10})?\]")
#: calls the ucx_log reader reads with the cuda_ipc cache's own fatal message (ucx_cuda_ipc_open_failed)
_OWNED_ELSEWHERE = ("cuIpcOpenMemHandle", "cudaIpcOpenMemHandle")
_MARKERS = (" is failed. ret:", " failed: ", ") error: ")
#: the consequence is read with a call failure this many lines before it at most
_CONSEQUENCE_LINES = 2


@lru_cache(maxsize=1)
def _by_api_text() -> dict[tuple[str, str], catalogue.Entry]:
    """(api, lower-case text without a final period) -> the first catalogue entry with that text in that API."""
    out: dict[tuple[str, str], catalogue.Entry] = {}
    for e in catalogue.entries():
        for t in (e.text, *e.texts):
            out.setdefault((e.api, t.lower().rstrip(".")), e)
    return out


def _entry(call: str, text: str) -> catalogue.Entry | None:
    """The catalogue entry of the call's API (cu*: driver, cuda*: runtime) whose text is all of ``text``, case and a final
    period aside."""
    api = "runtime" if call.startswith("cuda") else "driver"
    return _by_api_text().get((api, text.strip().lower().rstrip(".")))


def _read(line: str) -> tuple[re.Match, catalogue.Entry] | None:
    m = _CALL.search(line)
    if m is None or m["call"] in _OWNED_ELSEWHERE or (e := _entry(m["call"], m["msg"])) is None:
        return None
    return m, e


def detect(text: str) -> bool:
    return "ERROR" in text and any(_read(line) is not None for _s, line in lines_with(text, _MARKERS))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    used: set[int] = set()
    seen: set[tuple[str, str, str]] = set()
    for n, line in iter_lines_with(_MARKERS, artefact):
        if (read := _read(line)) is None:
            continue
        m, e = read
        used.add(n)
        for k in range(n + 1, min(n + _CONSEQUENCE_LINES, len(lines)) + 1):
            if _RKEY.search(lines[k - 1]) is not None:
                used.add(k)
        host = _HOST.search(line[:m.start()])
        node = artefact.node_for(host["host"] if host else None)
        if (node, m["call"], e.name) in seen:
            continue  # the same call failing again (every buffer's registration): one fact
        seen.add((node, m["call"], e.name))
        fb.add(CudaError, n, node=node, error_name=e.name, catalogue_name=e.name,
               runtime_name=e.name if e.api == "runtime" else catalogue.runtime_twin(e), code=e.code,
               message=line[m.start():].strip()[:300], form="ucx_call", api_call=m["call"])
    result.lines_used = len(used)
    return result


#: line signatures (facts/classify.py)
#: (the rkey consequence is no signature: alone, it is an error nobody read)
SIGNATURES = (r"\bUCX\s+ERROR\s+cu(?:da)?[A-Z]\w*(?:\([^\n]*\))?(?:\(\))? (?:is failed\. ret:|failed: |error: )[A-Za-z]",)

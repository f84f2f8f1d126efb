"""Ollama server log (``ollama serve``, ``journalctl -u ollama``): Go ``log/slog`` text lines.

Made by ``ollama serve 2>&1 | tee ollama.log`` or ``journalctl -u ollama --no-pager``. Every line
is ``time=... level=LEVEL source=FILE.go:LINE msg=...`` followed by ``key=value`` pairs, as Go's
slog TextHandler writes them (journald may put its own prefix in front). Sample content (real,
ollama#12136 after the fix, ollama#11676's docker logs)::

    time=2025-11-12T03:10:56.706Z level=INFO source=runner.go:67 msg="discovering available GPUs..."
    time=2025-11-12T03:11:01.218Z level=INFO source=types.go:42 msg="inference compute" id=GPU-cdf3c132-675f-077e-3bf7-99d79213d062 filter_id="" library=CUDA compute=9.0 name=CUDA0 description="NVIDIA H100 80GB HBM3" libdirs=ollama driver=12.9 pci_id=0000:19:00.0 type=discrete total="79.6 GiB" available="79.2 GiB"
    time=2025-08-14T06:57:20.494Z level=INFO source=images.go:477 msg="total blobs: 66"

Facts: ``ollama_gpu`` for each ``inference compute`` line of a GPU (a GPU the server will use: its
UUID, bus id where printed, product name, compute capability, and ``driver_cuda``: the CUDA
version the driver supports, as ollama reads it from ``cuDriverGetVersion``);
``ollama_runner_exit`` for the server's report that the runner it started is gone (``msg="llama
runner terminated"``, ``msg="error loading llama server"``, also where a paste cut the line inside
that msg): the runner's own error is in the same log before it, so the line is its echo
(knowledge/fact_polarity.yaml); ``ollama_gpu_discovery_failed`` for the server's report, at any level, that its GPU discovery failed or found no
GPU (``msg="no compatible GPUs were discovered"``, the ``inference compute`` line of its CPU fallback, ``library=cpu``, a GPU library it could not load or initialise: ``_DISCOVERY``), an
echo where the same file's failure is reported (a CUDA status the line quotes is cuda_app's);
``ollama_log_error`` for each other ``level=ERROR`` line (its
``msg``), so that a failure ollama logged is never read as nothing. CUDA errors quoted in any line
are :mod:`cuda_app`'s.
Other lines (configuration, model loading, requests) are recognised and counted, not facts.
Empty input, or text without slog lines with a ``source=*.go`` key, is not this kind; nor is another Go program's slog
text (the same record form) where nothing names ollama, its runner or one of its own source files (``_MARK``).
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.app import (  # noqa: F401 - the fact classes live in facts/kinds
    OllamaGpu, OllamaGpuDiscoveryFailed, OllamaLogError, OllamaRunnerExit,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "ollama_log"

# time=2025-11-12T03:10:56.706Z level=INFO source=runner.go:67 msg="discovering available GPUs..."
# time=2025-08-14T06:57:20.494Z level=INFO source=images.go:477 msg="total blobs: 66"   (ollama#11676; a journald prefix in front is read the same)
_SLOG = re.compile(r"\blevel=(?P<level>DEBUG|INFO|WARN|ERROR)(?:[+-]\d+)? source=\S+\.go:\d+ msg=(?P<rest>.*)$")
# key=value or key="quoted value" (slog quotes values with spaces, '=' or quotes)
_PAIR = re.compile(r'(?P<key>[\w.]+)=(?P<value>"(?:[^"\\]|\\.)*"|\S*)')
_DETECT = re.compile(r"\blevel=(?:DEBUG|INFO|WARN|ERROR) source=\S+\.go:\d+ msg=")
# time=2025-03-07T05:36:39.884Z level=ERROR source=server.go:421 msg="llama runner terminated" error="exit status 2"
# time=2025-03-07T05:36:40.016Z level=ERROR source=sched.go:456 msg="error loading llama s        (ollama/ollama#9562, cut there)
# (llm/server.go monitorProcess: slog.Error("llama runner terminated", "error", err) once the runner's process exits
#  with an error message of its own captured; server/sched.go: slog.Error("error loading llama server", "error", err)
#  when WaitUntilRunning fails: the runner died, "llama runner process has terminated: ...", or never came up)
RUNNER_EXIT = ("llama runner terminated", "error loading llama server")
#: a msg= cut by the paste is taken for the runner-exit message it begins from this many characters on
_CUT_PREFIX = 16
#: line signatures for facts/classify.py (one of them occurs in every text detect accepts)
SIGNATURES = (_DETECT,)


# Ollama's own marks: a slog record with AddSource's short ``source=<file>.go:<n>`` is any Go program's (prometheus's
# promslog writes the same: time=2025-06-04T15:02:34.196Z level=ERROR source=main.go:165 msg="couldn't enable collectors"
# err="unknown collector gpu", prometheus-community/windows_exporter#2072), so the text must also name ollama, its
# llama.cpp runner or ggml, its GPU discovery ("inference compute", "unable to load cuda driver library", "Unable to load
# cudart"), or come from one of ollama's own source files (server/sched.go, server/routes.go, server/images.go,
# discover/runner.go, discover/amd_linux.go, gpu/gpu_linux.go, llm/ggml.go, ...; the names as ollama's log prints them):
#   time=2024-09-03T16:36:00.853+08:00 level=DEBUG source=gpu.go:537 msg="Unable to load cudart" library=C:\Users\asus\AppData\Local\Programs\Ollama\lib\ollama\cudart64_12.dll   (ollama#6604)
#   time=2025-11-12T03:10:56.706Z level=INFO source=runner.go:67 msg="discovering available GPUs..."   (ollama#12136)
_MARK = re.compile(r"[Ll]lama|LLAMA|ggml|GGML|inference compute|cuda driver library|[Uu]nable to load (?:cudart|nvcuda)"
                   r"|no compatible GPUs were discovered"
                   r"|source=(?:sched|runner|routes|images|amd_linux|amd_windows|amd_common|gpu_linux|gpu_windows|cuda_common"
                   r"|ggml|llama|download|upload|manifest|envconfig)\.go:")


# The server's GPU discovery failing or finding nothing, at the level ollama logs it (INFO, WARN, DEBUG: the server goes on,
# on the CPU), the message as discover/gpu.go (0.1.3x-0.11) and discover/runner.go (0.12 on) word it:
#   time=2024-09-04T14:28:41.837+08:00 level=INFO source=gpu.go:568 msg="unable to load cuda driver library" library=/usr/lib64/libcuda.so.460.106.00 error="symbol lookup for cuCtxCreate_   (ollama/ollama#6626, cut there: a 460 driver without cuCtxCreate_v3)
#   time=2025-08-30T09:03:23.843-05:00 level=WARN source=gpu.go:605 msg="unknown error initializing cuda driver library /usr/lib/x86_64-linux-gnu/libcuda.so.575.64.03: cuda driver library init failure: 999. see https://github.com/ollama/ollama/blob/main/docs/troubleshooting.md for more information"   (ollama 0.11.3's journal, quoted in a public notes file)
#   time=2025-04-14T07:08:45.375Z level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"   (zhaohb/ollama_ov#6)
#   time=2026-06-30T15:57:39.302+08:00 level=INFO source=runner.go:513 msg="failure during llama-server GPU discovery" OLLAMA_LIBRARY_PATH="[...]" extra_envs=map[] error="llama-server --list-devices failed: exit status 0xc0000005: ..."   (ollama/ollama#16970)
#   (gpu.go's other wordings of one failed library: "Unable to load cudart library <lib>: <text>", "version mismatch between
#   driver and cuda driver library - reboot or upgrade may be required: library <lib>", "no nvidia devices detected by
#   library <lib>", "loadNVCUDAMgmt:" error=..., DEBUG "Unable to load cudart" / "Unable to load nvcuda" error=..., 0.1.x's
#   "Unable to load CUDA management library <lib>: nvml vram init failure: 999" (ollama/ollama#4216's title))
# A 32-bit library tried first and skipped ("wrong ELF class: ELFCLASS32", gpu.go's "skipping 32bit library") is no failure.
_DISCOVERY = re.compile(
    r"(?:no compatible GPUs were discovered|[Uu]nable to load (?:cuda driver library|cudart|nvcuda|CUDA management library)"
    r"|unknown error initializing cuda driver library|version mismatch between driver and cuda driver library"
    r"|no nvidia devices detected|failure during llama-server GPU discovery"
    r"|loadNVCUDAMgmt:$)")
_ERROR_CUT = re.compile(r'\berror="(?P<err>[^"]*)$')
# discover/gpu_info.h LOAD_SYMBOL: snprintf(buf, buflen, "symbol lookup for %s failed: %s", l[i].s, msg) ("cuCtxCreate_"
# where a paste cut the name: ollama/ollama#6626)
_MISSING_SYMBOL = re.compile(r"\bsymbol lookup for (?P<sym>cu[A-Z]\w{0,60})(?: failed\b|$)")


def _discovery(msg: str, kv: dict[str, str], rest: str) -> str | None:
    """The discovery failure ``msg`` reports (with its error= where given; an error= value the paste cut is kept to its end),
    or None."""
    if _DISCOVERY.match(msg) is None or (msg == "loadNVCUDAMgmt:" and "error" not in kv):
        return None
    err = kv.get("error")
    if err is not None and err.startswith('"') and (cut := _ERROR_CUT.search(rest)) is not None:
        err = cut["err"].rstrip()
    if "wrong ELF class" in msg or (err and "wrong ELF class" in err):
        return None
    return f"{msg}: {err}" if err else msg


def detect(text: str) -> bool:
    if "source=" not in text or "level=" not in text:
        return False
    return _DETECT.search(text) is not None and _MARK.search(text) is not None


def pairs(rest: str) -> tuple[str, dict[str, str]]:
    """(msg, the key=value pairs after it) of the text after ``msg=``."""
    out: dict[str, str] = {}
    msg = ""
    for i, m in enumerate(_PAIR.finditer("msg=" + rest)):
        value = m["value"]
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            value = value[1:-1].replace('\\"', '"')
        if i == 0:
            msg = value
        else:
            out[m["key"]] = value
    return msg, out


def _runner_exit(msg: str, rest: str) -> tuple[str | None, bool]:
    """(the runner-exit message ``msg`` is, whether the paste cut it) or (None, False). ``rest``: the line
    after ``msg=``; a quote opened there and never closed is a line that ends inside msg=."""
    if msg in RUNNER_EXIT:
        return msg, False
    if rest.startswith('"') and '"' not in rest[1:]:
        head = rest[1:].rstrip()
        if len(head) >= _CUT_PREFIX:
            for full in RUNNER_EXIT:
                if full.startswith(head):
                    return full, True
    return None, False


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    failed_before = False
    for n, line in enumerate(artefact.lines, 1):
        if "source=" not in line or (m := _SLOG.search(line)) is None:
            continue
        result.lines_used += 1
        msg, kv = pairs(m["rest"])
        if (failed := _discovery(msg, kv, m["rest"])) is not None:
            sym = _MISSING_SYMBOL.search(failed)
            b.add(OllamaGpuDiscoveryFailed, n, message=failed[:300], library=kv.get("library") or None,
                  missing_symbol=sym["sym"] if sym else None)
            failed_before = True
        elif msg == "inference compute" and (kv.get("library") or "").lower() == "cpu":
            # the CPU fallback: discover/types.go LogDetails logs it only "when bootstrap discovery found no GPUs"
            # (0.12+: id=cpu library=cpu; 0.1-0.11's GpuInfoList held the CPU's entry only when no GPU was found:
            # id=0 library=cpu variant=avx2 driver=0.0), so the server runs every model on the CPU; a fact of its own
            # only where no discovery failure before it in the file says so already (its consequence, one finding)
            if not failed_before:
                b.add(OllamaGpuDiscoveryFailed, n, message="inference compute on the CPU (library=cpu): no GPU discovered")
        elif msg == "inference compute":
            bus = kv.get("pci_id")
            b.add(OllamaGpu, n, gpu_uuid=kv.get("id") or None,
                  pci_bus_id=try_pci_bus_id(bus) if bus else None,
                  name=kv.get("description") or kv.get("name") or None, library=kv.get("library") or None,
                  compute=kv.get("compute") or None, driver_cuda=kv.get("driver") or None)
        elif m["level"] == "ERROR":
            err = kv.get("error")
            exit_msg, cut = _runner_exit(msg, m["rest"])
            if exit_msg is not None:
                b.add(OllamaRunnerExit, n, message=(f"{exit_msg}: {err}" if err else exit_msg)[:300], cut=cut)
            else:
                b.add(OllamaLogError, n, message=(f"{msg}: {err}" if err else msg)[:300])
    return result

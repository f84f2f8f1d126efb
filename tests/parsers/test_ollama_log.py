"""ollama_log: Go slog lines of the ollama server, GPU discovery and errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import ollama_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures/artefacts/ollama_log"


def parse_text(text: str):
    return ollama_log.parse(Artefact(path="ollama.log", text=text, node="node1"))


def test_real_h100_discovery():
    text = (FIX / "h100_gpu_discovery_0.12.log").read_text()
    assert ollama_log.detect(text)
    r = parse_text(text)
    assert r.errors == [] and r.lines_used == 3
    (gpu,) = r.facts
    assert (gpu.kind, gpu.gpu_uuid, gpu.pci_bus_id, gpu.name, gpu.compute, gpu.driver_cuda) == (
        "ollama_gpu", "GPU-cdf3c132-675f-077e-3bf7-99d79213d062", "0000:19:00.0", "NVIDIA H100 80GB HBM3", "9.0", "12.9")


def test_older_release_quoted_name_without_bus_id():
    # CRAFTED from an older release's gpu/types.go LogDetails (slog.Info("inference compute", "id", ..., "library", ...,
    # "compute", ..., "driver", ..., "name", ..., "total", ..., "available", ...); no pci_id), values chosen, journald's
    # prefix (systemd's short format) in front
    line = ('Jun 01 14:10:12 host ollama[1]: time=2024-06-01T14:10:12.114+03:00 level=INFO source=types.go:98 '
            'msg="inference compute" id=GPU-5b0e7a1c-3d2f-4e8a-9c61-0f7d2a4b8e93 library=cuda compute=8.6 '
            'driver=12.2 name="NVIDIA GeForce RTX 3060" total="11.8 GiB" available="11.6 GiB"')
    assert ollama_log.detect(line)
    (gpu,) = parse_text(line).facts
    assert (gpu.name, gpu.pci_bus_id, gpu.driver_cuda, gpu.library) == ("NVIDIA GeForce RTX 3060", None, "12.2", "cuda")


def test_error_line_is_a_fact():
    line = ('time=2024-06-01T10:00:00.000Z level=ERROR source=sched.go:443 msg="error loading llama server" '
            'error="llama runner process has terminated: exit status 0xc0000409"')
    (f,) = parse_text(line).facts
    # the scheduler's report of a load that failed: the runner's end (its own error is in the log before it)
    assert f.kind == "ollama_runner_exit" and not f.cut
    assert f.message == "error loading llama server: llama runner process has terminated: exit status 0xc0000409"


# ollama/ollama#9562 (Docker Desktop's stamps in front), the runner's allocation failure and then the server's two
# ERROR lines; the paste cut the second inside its msg=
OLLAMA_9562 = (
    "2025-03-06 23:36:39 ggml_backend_cuda_buffer_type_alloc_buffer: allocating 3257.82 MiB on device 0: "
    "cudaMalloc failed: out of memory\n"
    '2025-03-06 23:36:39 time=2025-03-07T05:36:39.884Z level=ERROR source=server.go:421 msg="llama runner terminated" '
    'error="exit status 2"\n'
    '2025-03-06 23:36:40 time=2025-03-07T05:36:40.016Z level=ERROR source=sched.go:456 msg="error loading llama s\n')


def test_runner_exit_lines_after_the_runner_error():
    got = [(f.kind, f.message, f.cut) for f in parse_text(OLLAMA_9562).facts]
    assert got == [("ollama_runner_exit", "llama runner terminated: exit status 2", False),
                   ("ollama_runner_exit", "error loading llama server", True)]


@pytest.mark.parametrize("cut", ['msg="error loading', 'msg="llama runner'])
def test_a_msg_cut_too_short_stays_an_error_line(cut):
    # #9562's sched.go line cut shorter still: fewer than 16 characters of the message left, not told from another
    # message that begins alike
    line = "time=2025-03-07T05:36:40.016Z level=ERROR source=sched.go:456 " + cut
    (f,) = parse_text(line).facts
    assert f.kind == "ollama_log_error"


@pytest.mark.parametrize("text", [
    "",
    "level=INFO msg=hello",  # no source= key: some other slog program
    "2025/02/09 17:56:22 routes.go:1187: INFO server config env=\"map[]\"",  # ollama's older log.Printf line
    # another Go program's slog record in the same form (promslog: prometheus-community/windows_exporter#2072), nothing
    # of ollama in it
    'time=2025-06-04T15:02:34.196Z level=ERROR source=main.go:165 msg="couldn\'t enable collectors" err="unknown collector gpu"',
    'time=2025-06-04T15:02:34.196Z level=INFO source=gpu.go:80 msg="starting collector"',  # CONSTRUCTED: a collector's file
])
def test_not_this_kind(text):
    assert not ollama_log.detect(text)


@pytest.mark.parametrize("text", [
    # ollama's own file names, nothing else of ollama in the line (ollama#12136's first line; server/sched.go)
    'time=2025-11-12T03:10:56.706Z level=INFO source=runner.go:67 msg="discovering available GPUs..."',
    'time=2025-03-07T05:36:40.016Z level=ERROR source=sched.go:456 msg="error loading',
    # another file, the runner named in the message (ollama/ollama#9562)
    'time=2025-03-07T05:36:39.884Z level=ERROR source=server.go:421 msg="llama runner terminated" error="exit status 2"',
    # the server's configuration record names its OLLAMA_ variables (CONSTRUCTED from envconfig's "server config" record)
    'time=2025-01-01T00:00:00.000Z level=INFO source=server.go:100 msg="server config" env="map[OLLAMA_HOST:http://0.0.0.0:11434]"',
])
def test_ollama_marks(text):
    assert ollama_log.detect(text)


# Wild sweep rT2: the server's GPU discovery failing or finding no GPU, at the level ollama logs it (INFO, WARN, DEBUG)

def test_discovery_failure_real_symbol_lookup_cut():
    # ollama/ollama#6626: a 460 driver without cuCtxCreate_v3; the journal quoted with "> ", the excerpt cut in error=
    text = (FIX / "ollama6626_cuda_driver_library_symbol_lookup_cut.log").read_text()
    assert ollama_log.detect(text)
    (f,) = parse_text(text).facts
    assert (f.kind, f.message, f.library) == (
        "ollama_gpu_discovery_failed", "unable to load cuda driver library: symbol lookup for cuCtxCreate_",
        "/usr/lib64/libcuda.so.460.106.00")


def test_discovery_failure_real_llama_server_runner():
    # ollama/ollama#16970: the discovery runner (llama-server --list-devices) crashed; the server runs on the CPU
    text = (FIX / "ollama16970_llama_server_discovery_failed_cut.log").read_text()
    facts = parse_text(text).facts
    # its CPU fallback line (line 5: ollama 0.12+'s id=cpu library=cpu) is the failure's consequence, never a GPU in use
    assert [f.kind for f in facts] == ["ollama_gpu_discovery_failed"]
    assert facts[0].message.startswith("failure during llama-server GPU discovery: llama-server --list-devices failed: "
                                       "exit status 0xc0000005")


@pytest.mark.parametrize("line", [
    # ollama/ollama#16970 (the fixture above, line 5): 0.12+'s CPU fallback, pasted alone (session 54's fragment
    # audit, seed 5401, read this window HEALTHY before)
    'time=2026-06-30T15:57:39.302+08:00 level=INFO source=types.go:50 msg="inference compute" id=cpu library=cpu '
    'compute="" name=cpu description=cpu libdirs=ollama driver="" pci_id="" type="" total="15.8 GiB" available="6.1 GiB"',
    # CONSTRUCTED in the form of 0.5-0.11's GpuInfoList.LogDetails (gpu/types.go: slog.Info("inference compute", "id",
    # g.ID, "library", g.Library, "variant", g.Variant, ...)) for the CPU entry GetGPUInfo returns when no GPU was found
    'time=2025-03-01T10:00:00.000Z level=INFO source=types.go:130 msg="inference compute" id=0 library=cpu variant=avx2 '
    'compute="" driver=0.0 name="" total="31.3 GiB" available="28.2 GiB"',
])
def test_cpu_fallback_is_no_gpu_discovered(line):
    (f,) = parse_text(line).facts
    assert (f.kind, f.library, f.message) == ("ollama_gpu_discovery_failed", None,
                                              "inference compute on the CPU (library=cpu): no GPU discovered")


@pytest.mark.parametrize("line, message", [
    # zhaohb/ollama_ov#6 (ollama's gpu.go, its last word when no library found a GPU)
    ('time=2025-04-14T07:08:45.375Z level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"',
     "no compatible GPUs were discovered"),
    # CONSTRUCTED in the form of ollama 0.5-0.11's discover/gpu.go (fmt.Sprintf("unknown error initializing cuda driver
    # library %s: %s. see ...", libPath, "cuda driver library init failure: 999"), slog.Warn), the library path chosen
    ('time=2025-08-30T09:03:23.843-05:00 level=WARN source=gpu.go:605 msg="unknown error initializing cuda driver library '
     '/usr/lib/x86_64-linux-gnu/libcuda.so.575.64.03: cuda driver library init failure: 999. see '
     'https://github.com/ollama/ollama/blob/main/docs/troubleshooting.md for more information"',
     "unknown error initializing cuda driver library /usr/lib/x86_64-linux-gnu/libcuda.so.575.64.03: cuda driver library "
     "init failure: 999. see https://github.com/ollama/ollama/blob/main/docs/troubleshooting.md for more information"),
    # CONSTRUCTED in the form of an older gpu.go's slog.Debug("Unable to load cudart", "library", libPath, "error", err)
    ('time=2024-10-01T08:00:00.000Z level=DEBUG source=gpu.go:500 msg="Unable to load cudart" '
     'library=/usr/local/cuda/lib64/libcudart.so.12.4.127 error="cudart init failure: 999"',
     "Unable to load cudart: cudart init failure: 999"),
])
def test_discovery_failure_forms(line, message):
    (f,) = parse_text(line).facts
    assert (f.kind, f.message) == ("ollama_gpu_discovery_failed", message)


def test_a_32bit_library_skipped_is_no_failure():
    # CONSTRUCTED in the form of gpu.go's DEBUG line for the 32-bit libcuda it tries first (the error text as
    # discover/gpu_info.h's dlopen failure prints it)
    line = ('time=2024-10-01T08:00:00.000Z level=DEBUG source=gpu.go:400 msg="Unable to load nvcuda" '
            'library=/usr/lib/i386-linux-gnu/libcuda.so.550.90.07 error="Unable to load /usr/lib/i386-linux-gnu/libcuda.so.550.90.07 '
            'library to query for Nvidia GPUs: /usr/lib/i386-linux-gnu/libcuda.so.550.90.07: wrong ELF class: ELFCLASS32"')
    assert parse_text(line).facts == []

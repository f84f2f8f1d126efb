"""NVSHMEM's error lines (nvshmem_log): every release's framing from nvshmemx_error.h (NVIDIA/nvshmem),
the real lines of NVIDIA/TensorRT-LLM#17060 (fixture), and other programs' "non-zero status"."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import nvshmem_log as nv
from stethoscope.facts.parsers.base import Artefact

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "nvshmem_log" / "trtllm17060_heap_cumemmap_failed.log"
PREFIXES = ("", "[rank3]: ", "2026-07-30 10:00:01 [1,3]<stderr>:", "(EngineCore_DP0 pid=123) ")


def _facts(text: str):
    return nv.parse(Artefact(path="worker.log", text=text, node="n1")).facts


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "src", "status", "name", "msg"), [
    (".../src/host/mem/mem_heap.cpp:1519: non-zero status: 1 cuMemMap failed",
     ".../src/host/mem/mem_heap.cpp", 1, None, "cuMemMap failed"),
    ("src/host/init/init.cu:1011: error status: 7 (NVSHMEMX_ERROR_INTERNAL) nvshmemi_common_init failed",
     "src/host/init/init.cu", 7, "NVSHMEMX_ERROR_INTERNAL", "nvshmemi_common_init failed"),
    ("src/host/bootstrap/bootstrap.cpp:73: non-zero status: 2: No such file or directory, exiting... bootstrap_loader_init failed",
     "src/host/bootstrap/bootstrap.cpp", 2, None, "No such file or directory: bootstrap_loader_init failed"),
    ("src/host/topo/topo.cpp:311: NULL value get cpu_set_t failed", "src/host/topo/topo.cpp", None, None, "get cpu_set_t failed"),
])
def test_forms(prefix, line, src, status, name, msg):
    text = prefix + line + "\n"
    assert nv.detect(text)
    (f,) = _facts(text)
    assert (f.source_file, f.status, f.status_name, f.message, f.evidence.line) == (src, status, name, msg, 1)


def test_real_trtllm17060():
    text = FIXTURE.read_text()
    assert nv.detect(text)
    assert [(f.source_line, f.status, f.message) for f in _facts(text)] == [
        (1519, 1, "cuMemMap failed"), (1590, 7, "allocate_physical_memory_to_heap failed")]


@pytest.mark.parametrize("text", [
    "RuntimeError: Command `make` returned non-zero status: 2\n",
    "The pid 1234 exit with non-zero status: 1\n",
    "HIP script returned non-zero status: 1\n",
    "error: exit status: 1\n",
])
def test_not_nvshmem(text):
    assert not nv.detect(text)


def test_detect_is_linear_on_a_long_run_of_path_characters():
    # a head holding 'status: ' then 120,000 characters of a/b/a/b...: searched from every start of the run,
    # the unanchored signature took 140 s in Python's re; detect() starts a path at its first character only
    import time

    from stethoscope.facts.parsers import nvshmem_log
    hostile = "status: " + "a/b" * 40000
    t = time.process_time()
    assert not nvshmem_log.detect(hostile)
    assert nvshmem_log.detect(hostile + ".cpp:1: NULL value")  # the same run ending in a form is still found
    assert time.process_time() - t < 2.0


def test_nvls_steps_marked():
    # NVIDIA/nvshmem#40: the multicast heap mapping (team_internal_nvls.cpp) and its two callers name NVLS
    path = FIXTURE.parent / "nvshmem40_nvls_cumemmap_401.log"
    got = [(f.source_line, f.status, f.nvls) for f in nv.parse(Artefact(path="w.log", text=path.read_text(), node="n1")).facts]
    assert got == [(254, 401, True), (1573, 7, True), (786, 7, True)]
    # TensorRT-LLM#17060's unicast heap mapping is not NVLS
    assert [f.nvls for f in nv.parse(Artefact(path="w.log", text=FIXTURE.read_text(), node="n1")).facts] == [False] * 2


BOOT_FIXTURE = FIXTURE.parent / "tritondist122_uid_bootstrap_no_interface.log"


def test_uid_bootstrap_no_interface_real_lines():
    """ByteDance-Seed/Triton-distributed#122: the bootstrap plugin's file:function:line form, then the status chain."""
    got = [(f.source_file.rsplit("/", 1)[-1], f.source_line, f.status, f.message)
           for f in nv.parse(Artefact(path="launch.txt", text=BOOT_FIXTURE.read_text(), node="n1")).facts]
    assert got[0] == ("bootstrap_uid.cpp", 160, None, "No socket interface found")
    assert got[-1] == ("init.cu", 269, 7, "bootstrap pre-initialization failed")
    assert len(got) == 4
    assert nv.detect(BOOT_FIXTURE.read_text())


@pytest.mark.parametrize("prefix", PREFIXES)
def test_uid_bootstrap_forms_behind_prefixes(prefix):
    (f,) = _facts(prefix + "/src/modules/bootstrap/uid/bootstrap_uid.cpp:bootstrap_net_init:151: No usable listening interface found \n")
    assert (f.source_line, f.status, f.message) == (151, None, "No usable listening interface found")


@pytest.mark.parametrize("text", [
    "see bootstrap_uid.cpp for the details: nothing failed\n",  # no function:line
    "python/bootstrap_env.py:main:12: started\n",  # not a C/C++ source of a bootstrap plugin
    "/src/modules/bootstrap/uid/bootstrap_uid.cpp:bootstrap_net_init:160: \n",  # no message
])
def test_uid_bootstrap_near_misses(text):
    assert _facts(text) == []


@pytest.mark.parametrize(("line", "move"), [
    # NVIDIA/nvshmem#42 (real): releases to 3.x print one message for every queue-pair move
    ("main_nvshmem/src/modules/transport/ibrc/ibrc.cpp:420: non-zero status: 22 ibv_modify_qp failed.", "unnamed"),
    # later ibrc.cpp ep_connect / ep_create (format filled): the transport names the move
    ("src/modules/transport/ibrc/ibrc.cpp:523: error status: 7 (NVSHMEMX_ERROR_INTERNAL) IBRC QP modify INIT->RTR failed: "
     "pe 3 device mlx5_0 devid 0 port 1 link_layer Ethernet local_qpn 1234 remote_qpn 5678", "INIT->RTR"),
    ("src/modules/transport/ibrc/ibrc.cpp:471: non-zero status: 22 IBRC QP modify RESET->INIT failed: pe 0 device mlx5_1",
     "RESET->INIT"),
])
def test_queue_pair_moves_marked(line, move):
    (f,) = _facts(line + "\n")
    assert (f.qp_modify, f.qp_transition) == (True, move)


def test_other_steps_are_no_queue_pair_move():
    assert [(f.qp_modify, f.qp_transition) for f in _facts(FIXTURE.read_text())] == [(False, None)] * 2
    (f,) = _facts("src/modules/transport/ibrc/ibrc.cpp:1608: non-zero status: 7 ep_connect failed\n")
    assert (f.qp_modify, f.qp_transition) == (False, None)


# pytorch/pytorch#161232 (real): the core's NVSHMEMI_ERROR_EXIT form (file:function:line), torch's symmetric memory
# having initialised NVSHMEM before the CUDA runtime, then cs.cpp's mutex line (the NZ_EXIT form)
REAL_161232 = ("src/host/init/init.cu:nvshmemi_check_state_and_init:1117: nvshmem initialization failed, exiting \n"
               "src/host/util/cs.cpp:21: non-zero status: 16: Device or resource busy, exiting... mutex destroy failed\n")


def test_core_error_exit_real_lines():
    assert nv.detect(REAL_161232)
    got = [(f.source_file, f.source_line, f.status, f.message, f.evidence.line) for f in _facts(REAL_161232)]
    assert got == [("src/host/init/init.cu", 1117, None, "nvshmem initialization failed, exiting", 1),
                   ("src/host/util/cs.cpp", 21, 16, "Device or resource busy: mutex destroy failed", 2)]
    # the line alone (no 'status: ' in the paste) is still found
    first = REAL_161232.splitlines(keepends=True)[0]
    assert nv.detect(first) and len(_facts(first)) == 1


@pytest.mark.parametrize("prefix", PREFIXES)
def test_core_error_exit_behind_prefixes(prefix):
    (f,) = _facts(prefix + "/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.8/main_nvshmem/"
                  "src/host/init/init.cu:nvshmemi_check_state_and_init:1117: nvshmem initialization failed, exiting \n")
    assert (f.source_file.rsplit("/", 1)[-1], f.source_line, f.message) == (
        "init.cu", 1117, "nvshmem initialization failed, exiting")


@pytest.mark.parametrize("text", [
    "src/main.cpp:main:12: starting the server\n",  # another program's file:function:line
    "src/host/init/init.cu:nvshmemi_check_state_and_init:1117: \n",  # no message
    "see init.cu:nvshmemi_check_state_and_init for the details\n",  # no line number
    "scripts/nvshmem_env.py:nvshmem_main:3: started\n",  # not a C/C++ source
])
def test_core_error_exit_near_misses(text):
    assert _facts(text) == []


# deepseek-ai/DeepEP#202 (real, as posted): DeepEP's low-latency test on Alibaba Cloud eRDMA; NVSHMEM's IBGDA transport
# leaves the non-mlx5 device out (NVSHMEMI_WARN_PRINT: 'WARN: ' on stdout, a blank line after it where the format ends
# in '\n')
REAL_DEEPEP202 = ("root@zz:/sgl-workspace/DeepEP# python3 tests/test_low_latency.py \n"
                  "Allocating buffer size: 2115.111296 MB ...\n"
                  "WARN: device erdma_0 is not enumerated as an mlx5 device. Skipping...\n\n")


def test_ib_device_skipped_real_line():
    assert nv.detect(REAL_DEEPEP202)
    got = [(f.kind, f.device, f.expected, f.evidence.line) for f in _facts(REAL_DEEPEP202)]
    assert got == [("nvshmem_device_skipped", "erdma_0", "mlx5", 3)]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("line", "device", "expected"), [
    ("WARN: device erdma_0 is not enumerated as an mlx5 device. Skipping...", "erdma_0", "mlx5"),
    # NVIDIA/nvshmem v3.4.5-0 ibgda.cpp's name check, its format filled with NVSHMEM's default
    ("WARN: device erdma_0 is not supported (expected HCA interface: mlx5 or ibp). Skipping...", "erdma_0", "mlx5 or ibp"),
])
def test_ib_device_skipped_forms(prefix, line, device, expected):
    text = prefix + line + "\n"
    assert nv.detect(text)
    (f,) = _facts(text)
    assert (f.kind, f.device, f.expected) == ("nvshmem_device_skipped", device, expected)


@pytest.mark.parametrize("text", [
    # ibgda.cpp's other skips (v3.4.5-0 format strings, filled): another reason, not this form
    "WARN: device mlx5_0 cannot allocate buffer on the specified memory type. Skipping...\n",
    "WARN: device is not enumerated as an mlx5 device. Skipping...\n",  # no device name
    "see: device erdma_0 is not enumerated as an mlx5 device\n",  # no WARN: prefix, no Skipping
])
def test_ib_device_skipped_near_misses(text):
    assert _facts(text) == []


AH_FIXTURE = FIXTURE.parent / "megatronbridge5050_ibgda_unable_to_create_ah.log"


@pytest.mark.parametrize("prefix", PREFIXES)
def test_address_handle_refused_marked(prefix):
    # NVIDIA-NeMo/Megatron-Bridge#5050 (real, NVSHMEM 3.4.5 on B300): IBGDA's ibv_create_ah returned NULL
    # (NVSHMEMI_NULL_ERROR_JMP's 'NULL value' form), then its caller's 'create DCT share err.'
    lines = [prefix + line for line in AH_FIXTURE.read_text().splitlines()]
    facts = _facts("\n".join(lines) + "\n")
    assert [(f.evidence.line, f.address_handle, f.message) for f in facts] == [
        (1, True, "Unable to create ah."), (3, False, "create DCT share err.")]
    assert facts[0].status is None and facts[0].source_line == 2234


@pytest.mark.parametrize("line", [
    # another NULL value step of IBGDA's set-up (v3.4.5 ibgda.cpp:1385's format filled): no address handle
    "src/modules/transport/ibgda/ibgda.cpp:1385: NULL value cannot allocate mlx5dv_devx_uar",
    # a queue-pair move, and the heap's step: other rules
    "main_nvshmem/src/modules/transport/ibrc/ibrc.cpp:420: non-zero status: 22 ibv_modify_qp failed.",
    ".../src/host/mem/mem_heap.cpp:1519: non-zero status: 1 cuMemMap failed",
    # the words elsewhere in a message, not the step that failed (constructed)
    "src/host/transport/transport.cpp:420: non-zero status: 7 connect EPS failed after Unable to create ah",
])
def test_other_steps_are_no_address_handle(line):
    (f,) = _facts(line + "\n")
    assert f.address_handle is False

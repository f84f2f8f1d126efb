"""cuda_app: the real illegal-address capture, PyTorch error and out-of-memory formats."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import cuda_app
from stethoscope.facts.parsers.base import Artefact

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures/artefacts/cuda_app"
OBS = Path(__file__).resolve().parents[2] / "fixtures" / "observations" / "h200-x2"


def parse_file(name: str, node: str = "node1"):
    path = FIX / name
    return cuda_app.parse(Artefact(path=f"cuda_app/{name}", text=path.read_text(), node=node))


def parse_text(text: str):
    return cuda_app.parse(Artefact(path="t.log", text=text, node="node1"))


def test_real_illegal_address_capture():
    r = parse_file("app-illegal-address.txt", node="vm")
    assert r.errors == []
    got = [(f.evidence.line, f.error_name, f.runtime_name, f.message, f.node) for f in r.facts]
    # line 10 repeats line 5 ("Exception ignored in ...") and is the same error
    assert got == [
        (1, "cudaErrorIllegalAddress", "cudaErrorIllegalAddress", "an illegal memory access was encountered", "vm"),
        (5, "CUDA_ERROR_ILLEGAL_ADDRESS", "cudaErrorIllegalAddress", "an illegal memory access was encountered", "vm"),
    ]
    assert r.lines_used == 3


def test_detect_on_every_real_capture():
    for path in sorted(OBS.rglob("*")):
        if path.is_file() and path.suffix != ".md":  # the README quotes the captures
            head = path.read_text(errors="replace")[:65536]
            assert cuda_app.detect(head) is (path.name == "app-illegal-address.txt"), path


ROWS = [
    ("RuntimeError: CUDA error: an illegal memory access was encountered", "cudaErrorIllegalAddress", None, None),
    ("[rank3]:RuntimeError: CUDA error: device-side assert triggered", "cudaErrorAssert", 3, None),
    ("  what():  CUDA error: unspecified launch failure", "cudaErrorLaunchFailure", None, None),
    ("cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorECCUncorrectable: uncorrectable ECC error encountered",
     "cudaErrorECCUncorrectable", None, None),
    # llama.cpp / ollama (ggml_cuda_init), ollama#12136, quote markers as posted
    ("> > ggml_cuda_init: failed to initialize CUDA: system not yet initialized", "cudaErrorSystemNotReady", None, None),
    # ollama's API error copied by hand, no space after the colon (ollama#4226)
    ('{"error":{"message":"timed out waiting for llama runner to start:CUDA error:uncorrectable ECC error encountered\\',
     "cudaErrorECCUncorrectable", None, None),
    # onnxruntime's CudaCall (deepinsight/insightface#2524)
    ("EP Error /onnxruntime_src/onnxruntime/core/providers/cuda/cuda_call.cc:121 std::conditional_t<THRW, void, "
     "onnxruntime::common::Status> onnxruntime::CudaCall(...) [with ERRTYPE = cudaError; bool THRW = true] "
     "CUDA failure 100: no CUDA-capable device is detected ; GPU=32712 ; hostname=HOME-PC ; "
     "file=/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_execution_provider.cc ; line=245 ; "
     "expr=cudaSetDevice(info_.device_id);", "cudaErrorNoDevice", None, None),
]


@pytest.mark.parametrize("line,name,rank,device", ROWS)
def test_error_lines(line, name, rank, device):
    r = parse_text(line)
    (f,) = r.facts
    assert (f.error_name, f.runtime_name, f.rank, f.device) == (name, name, rank, device)


@pytest.mark.parametrize("line", [
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "vm:1708:1708 [0] NCCL INFO cudaDriverVersion 13000",
    "ggml_cuda_init: failed to initialize CUDA: not a CUDA error text",  # unresolved: no guess
    "CUBLAS failure 13: execution failed ; GPU=0 ; hostname=h ; expr=cublasSgemm(...);",  # a cuBLAS status
    "[Sun Nov 29 18:32:13 2026] NVRM: Xid (PCI:0000:00:06): 31, pid=1883, name=python3, channel 0x0000000a",
    "",
])
def test_negative_lines(line):
    assert parse_text(line).facts == []


def test_pytorch_errors_and_oom_versions():
    r = parse_file("torch_cuda_errors.log")
    ooms = [(f.evidence.line, f.device, f.tried_bytes, f.total_bytes, f.free_bytes) for f in r.facts if f.kind == "cuda_oom"]
    assert ooms == [
        (6, 0, round(22.78 * 2**30), round(31.47 * 2**30), round(12.73 * 2**30)),
        (7, 0, round(55.57 * 2**30), 12 * 2**30, round(9.02 * 2**30)),
        (8, 1, 2 * 2**30, round(15.75 * 2**30), round(1.71 * 2**30)),
    ]
    errs = [(f.evidence.line, f.error_name, f.device) for f in r.facts if f.kind == "cuda_error"]
    # PyTorch's out-of-memory message is a cuda_oom only (its own rules read it)
    assert errs == [(2, "cudaErrorIllegalAddress", None), (9, "cudaErrorAssert", None)]
    assert [(e.path, e.line) for e in r.errors] == [("cuda_app/torch_cuda_errors.log", 10)]
    assert r.lines_used == 9  # boilerplate lines count as read


def test_mixed_terminal_session():
    path = ROOT / "fixtures/artefacts/torch_log/mixed_session.txt"
    r = cuda_app.parse(Artefact(path="m.txt", text=path.read_text(), node="node1"))
    assert [(f.evidence.line, f.error_name) for f in r.facts] == [(8, "cudaErrorIllegalAddress")]
    assert r.lines_used == 4


def test_empty_input():
    r = parse_text("")
    assert (r.facts, r.errors, r.lines_used) == ([], [], 0)


def test_every_form_resolves_through_the_catalogue():
    r = parse_file("cuda_forms.log")
    got = [(f.evidence.line, f.catalogue_name, f.code, f.form) for f in r.facts]
    assert got == [
        (1, "cudaErrorSystemNotReady", 802, "numbered"),
        (2, "CUDA_ERROR_SYSTEM_NOT_READY", 802, "name_only"),
        (3, "cudaErrorAssert", 710, "thc"),  # CUDA <= 9 numbered it 59: the text decides
        (4, "CUDA_ERROR_NO_DEVICE", 100, "name_only"),
        (5, "cudaErrorPeerAccessUnsupported", 217, "name_only"),
        (6, "cudaErrorNoDevice", 100, "pytorch_init"),
        (7, "cudaErrorNoKernelImageForDevice", 209, "torch"),
        (8, "cudaErrorInvalidDeviceFunction", 98, "torch"),
        (9, "cudaErrorPeerAccessAlreadyEnabled", 704, "cuda_gdb"),
        (10, None, None, "library_status"),  # a cuBLAS status is no CUDA enum: a library status (its own rules)
    ]
    assert r.facts[2].printed_code == 59


@pytest.mark.parametrize("name,catalogue_name,code,extra", [
    ("devices_unavailable.log", "cudaErrorDevicesUnavailable", 46, {}),
    ("driver_too_old.log", "cudaErrorInsufficientDriver", 35, {"driver_cuda": "11.6"}),
    ("peer_access_custom_allreduce.txt", "cudaErrorPeerAccessUnsupported", 217,
     {"source_file": "/home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh", "source_line": 307}),
    ("ecc_uncorrectable.log", "cudaErrorECCUncorrectable", 214, {}),
])
def test_real_posts(name, catalogue_name, code, extra):
    r = parse_file(name)
    (f,) = r.facts  # the repeated line and the "Search for `cudaErrorX'" line are the same error
    assert (f.catalogue_name, f.code) == (catalogue_name, code)
    assert {k: getattr(f, k) for k in extra} == extra


@pytest.mark.parametrize("line,catalogue_name", [
    # facebookresearch/xformers#998: the message in markdown italics inside the reporter's sentence
    ("it gave a _RuntimeError: CUDA error: invalid configuration argument_ error.", "cudaErrorInvalidConfiguration"),
    ("RuntimeError: CUDA error: __invalid configuration argument__", "cudaErrorInvalidConfiguration"),  # CONSTRUCTED
    ("RuntimeError: CUDA error: invalid configuration argument_", "cudaErrorInvalidConfiguration"),  # CONSTRUCTED
])
def test_a_message_in_markdown_emphasis_resolves(line, catalogue_name):
    (f,) = parse_text(line).facts
    assert f.catalogue_name == catalogue_name


def test_an_identifier_going_on_after_the_text_is_not_the_text():
    # CONSTRUCTED: "_" followed by more of a word is an identifier, not the end of the text
    assert [f.catalogue_name for f in parse_text("RuntimeError: CUDA error: invalid configuration argument_count").facts] == [None]


def test_xformers998_real_post():
    (f,) = parse_file("xformers998_invalid_configuration_in_italics.txt").facts
    assert (f.catalogue_name, f.code) == ("cudaErrorInvalidConfiguration", 9)


def test_oom_held_by_another_process():
    (o,) = parse_file("oom_other_process.log").facts
    assert (o.kind, o.device, o.tried_bytes, o.reserved_bytes) == ("cuda_oom", 0, 20 * 2**20, round(2.75 * 2**30))
    assert o.elsewhere_fraction == 0.742  # 10.76 total - 0.026 free - 2.75 reserved by PyTorch


def test_oom_message_pasted_from_its_size_on():
    # LISTatSNU/FastMRI_challenge#238: the message from "Tried to allocate" on, "CUDA out of memory." not copied
    (o,) = parse_file("fastmri238_oom_message_from_tried_to_allocate.txt").facts
    assert (o.kind, o.evidence.line, o.device, o.tried_bytes) == ("cuda_oom", 2, 0, 216 * 2**20)
    assert o.elsewhere_fraction == 0.986  # 7.92 total - 0.024 free - 0.084 reserved by PyTorch
    # 2.1 and later, the same cut (CONSTRUCTED from FoundationVision/GenerateU#10's message, its start left out)
    (o,) = parse_text("Tried to allocate 496.00 MiB. GPU 0 has a total capacty of 14.75 GiB of which 235.06 MiB is free. "
                      "Process 20398 has 14.52 GiB memory in use. Of the allocated memory 14.06 GiB is allocated by "
                      "PyTorch, and 330.42 MiB is reserved by PyTorch but unallocated.\n").facts
    assert (o.device, o.other_processes, o.process_bytes) == (0, 0, round(14.52 * 2**30))
    # near misses (CONSTRUCTED): other programs' "Tried to allocate" without the allocator's device clause
    assert parse_text("Tried to allocate 512.00 MiB but the pool was exhausted\n").facts == []
    assert parse_text("WARNING: Tried to allocate 2 GiB. Retrying with a smaller batch\n").facts == []
    # another backend's allocator prints the same rest after its own start (torch_musa's CachingAllocator; CONSTRUCTED)
    assert [f.kind for f in parse_text("RuntimeError: MUSA out of memory. Tried to allocate 20.00 MiB (GPU 0; 47.98 GiB "
                                       "total capacity; 1.00 GiB already allocated; 10.00 MiB free; 1.10 GiB reserved in "
                                       "total by PyTorch)\n").facts] != ["cuda_oom"]


def test_shorter_catalogue_text_quoted_whole():
    # jcjohnson/neural-style#312: a 4-word cudaGetErrorString text, under the phrase length, quoted in a sentence
    (f,) = parse_file("neuralstyle312_quoted_uncorrectable_ecc.txt").facts
    assert (f.kind, f.catalogue_name, f.form, f.message) == (
        "cuda_error", "cudaErrorECCUncorrectable", "quoted_text", "uncorrectable ECC error encountered")
    # straight quotes and backticks, a final period inside them (CONSTRUCTED)
    (f,) = parse_text('the job stops with "wait operation timed out." every night\n').facts
    assert f.catalogue_name == "cudaErrorTimeout"
    (f,) = parse_text("it fails with `peer mapping resources exhausted` on 9 GPUs\n").facts
    assert f.catalogue_name == "cudaErrorTooManyPeers"
    # near misses (CONSTRUCTED): a 3-word text quoted stays English, a 4-word text inside a longer quotation or
    # unquoted is the reporter's words
    assert parse_text('the dataloader says "out of memory" on the host\n').facts == []
    assert parse_text('I read "the uncorrectable ECC error encountered yesterday" in the notes\n').facts == []
    assert parse_text("an uncorrectable ECC error encountered during the night, maybe\n").facts == []


def test_oom_21_lists_other_processes():
    line = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.70 GiB. GPU 0 has a total capacty of "
            "79.00 GiB of which 0 bytes is free. Process 1234 has 70.00 GiB memory in use. Including non-PyTorch memory, "
            "this process has 9.00 GiB memory in use. Of the allocated memory 4.50 GiB is allocated by PyTorch, and "
            "100.00 MiB is reserved by PyTorch but unallocated.")
    (o,) = parse_text(line).facts
    assert (o.other_processes, o.other_process_bytes, o.process_bytes) == (1, 70 * 2**30, 9 * 2**30)
    assert o.elsewhere_fraction == 0.886


def test_oom_21_own_process_listed_by_its_host_pid_in_a_container():
    # huggingface/text-generation-inference#1374 (Docker Compose): no "this process" entry, the one "Process N" holds
    # what PyTorch reserved (37.10 + 1.57 GiB) and its context: the process itself seen from another PID namespace
    (o,) = parse_file("tgi1374_router_oom_own_process_in_container.log").facts
    assert (o.other_processes, o.other_process_bytes, o.process_bytes) == (0, None, round(39.17 * 2**30))
    assert o.elsewhere_fraction == 0.0
    # must not: an entry holding less than PyTorch reserved is another process (it cannot be this one), and beside
    # "this process" every entry is another one (PyTorch matched its own pid)
    line = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of "
            "79.00 GiB of which 0 bytes is free. Process 4321 has 60.00 GiB memory in use. Of the allocated memory "
            "18.00 GiB is allocated by PyTorch, and 500.00 MiB is reserved by PyTorch but unallocated.")  # CONSTRUCTED
    (o,) = parse_text(line).facts
    assert (o.other_processes, o.process_bytes) == (0, 60 * 2**30)  # 60 >= 18.5 GiB: the process itself
    line = line.replace("Process 4321 has 60.00 GiB", "Process 4321 has 60.00 GiB memory in use. Process 4322 has 19.00 GiB")
    (o,) = parse_text(line).facts  # two entries: the closest above what PyTorch reserved is the process itself
    assert (o.other_processes, o.other_process_bytes, o.process_bytes) == (1, 60 * 2**30, 19 * 2**30)
    line = line.replace("Process 4322 has 19.00 GiB", "Process 4322 has 10.00 GiB").replace("Process 4321 has 60.00 GiB memory in use. ", "")
    (o,) = parse_text(line).facts  # 10 GiB < 18.5 GiB reserved: not this process
    assert (o.other_processes, o.other_process_bytes, o.process_bytes) == (1, 10 * 2**30, None)


def test_nccl_owned_lines_are_left_to_nccl_facts():
    text = ("Last error:\nCuda failure 'out of memory'\n"
            "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.\n"
            "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error'\n")
    assert parse_text(text).facts == []


@pytest.mark.parametrize("name,want", [
    # glog CHECK_EQ of Caffe's CUDA_CHECK: the text decides over CUDA 6.5's number (8 -> 98), a cuDNN status is none
    ("caffe_check_failed.log", [(1, "cudaErrorInvalidDeviceFunction", 98, 8, "check"),
                                (2, "cudaErrorMemoryAllocation", 2, 2, "check"),
                                (4, "cudaErrorSystemDriverMismatch", 803, 803, "check")]),
    # TensorFlow's CUDA_SUCCESS == driver call: the number is a CUresult (216; 4 is DEINITIALIZED, not cudart's 4)
    ("tf_check_failed_context_in_use.log", [(1, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE", 216, 216, "check")]),
    ("tf_check_failed_deinitialized.log", [(1, "CUDA_ERROR_DEINITIALIZED", 4, 4, "check")]),
    # the CUDA samples' "(error code <cudaGetErrorString>)!"
    ("cuda_samples_error_code.log", [(2, "cudaErrorInsufficientDriver", 35, None, "error_code")]),
    # a bare catalogue message, its last letter lost (an issue title)
    ("bare_message_title.txt", [(1, "cudaErrorPeerAccessUnsupported", 217, None, "phrase")]),
])
def test_check_error_code_and_phrase_forms(name, want):
    path = FIX / name
    assert cuda_app.detect(path.read_text())
    r = parse_file(name)
    assert [(f.evidence.line, f.catalogue_name, f.code, f.printed_code, f.form) for f in r.facts] == want


@pytest.mark.parametrize("line", [
    "Failed to copy vector A from host to device (error code 1)!",  # a bare number: too many programs print one
    "Check failed: status == CUDNN_STATUS_SUCCESS (7 vs. 0)Failed to set cuDNN st",
    "Check failed: a == b (1 vs. 2)",
    "the wait operation timed out",  # four words: ordinary English, no phrase
    "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN the operation cannot be performed in the present state",
    "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\npeer access is not supported between these two devices",
])
def test_check_error_code_and_phrase_negatives(line):
    assert parse_text(line).facts == []


@pytest.mark.parametrize("line, printed, message", [
    # TensorFlow 1.x's ToString(CUresult) for a code its table lacks (cuda_driver.cc: "CUresult(" << result << ")")
    ("2021-11-19 15:37:52.507957: E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: CUresult(-1)",
     -1, "failed call to cuInit: CUresult(-1)"),
    # numba's name for a CUresult its ERROR_MAP lacks (NVIDIA/cudf#432)
    ("numba.cuda.cudadrv.driver.CudaAPIError: [-1] Call to cuInit results in UNKNOWN_CUDA_ERROR",
     -1, "[-1] Call to cuInit results in UNKNOWN_CUDA_ERROR"),
])
def test_a_driver_call_failed_with_a_code_no_catalogue_names_is_read_unresolved(line, printed, message):
    """Read as what it is (wild sweep F4): a driver call that failed, its code unknown; no rule explains it, so the
    verdict keeps an unexplained error instead of saying nothing."""
    (f,) = parse_text(line).facts
    assert (f.catalogue_name, f.code, f.printed_code, f.message) == (None, None, printed, message)


def test_a_numba_name_it_knows_is_not_the_unknown_form():
    # numba names the codes its map has: the CUDA_ERROR_* name is read (the name_only form), not numba's unknown form
    (f,) = parse_text("numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in "
                      "CUDA_ERROR_NO_DEVICE (100)").facts
    assert (f.catalogue_name, f.form) == ("CUDA_ERROR_NO_DEVICE", "name_only")


def test_error_code_with_a_name_and_curesult():
    (f,) = parse_text("Failed to launch kernel (error code cudaErrorNoKernelImageForDevice)!").facts
    assert (f.catalogue_name, f.form) == ("cudaErrorNoKernelImageForDevice", "error_code")
    (g,) = parse_text("E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: CUresult(802)").facts
    assert (g.catalogue_name, g.form) == ("CUDA_ERROR_SYSTEM_NOT_READY", "curesult")


@pytest.mark.parametrize("line, catalogue_name", [
    # c10/cuda/driver_api.h C10_CUDA_DRIVER_CHECK: "CUDA driver error: " + cuGetErrorString's text (1.8 ... 2.14)
    ("RuntimeError: CUDA driver error: out of memory", "cudaErrorMemoryAllocation"),
    ("RuntimeError: CUDA driver error: invalid device ordinal", "cudaErrorInvalidDevice"),
    # near miss: a driver error text nobody catalogues stays a torch-form error without a catalogue entry
    ("RuntimeError: CUDA driver error: something new", None),
])
def test_c10_cuda_driver_error(line, catalogue_name):
    assert cuda_app.detect(line)
    (f,) = parse_text(line + "\n").facts
    assert (f.form, f.catalogue_name) == ("torch", catalogue_name)


@pytest.mark.parametrize("line, catalogue_name", [
    # NCCL's "Cuda failure '%s'" around a text with an apostrophe: the text runs to the last quote
    ("Cuda failure 'cudaDeviceSynchronize failed because caller's grid depth exceeds cudaLimitDevRuntimeSyncDepth'",
     "cudaErrorSyncDepthExceeded"),
    ("Cuda failure 'device doesn't have valid Grid license'", "cudaErrorDeviceNotLicensed"),
    # CUDA 13.5's code 919 and the text 11.x-12.4 printed for code 27 (tools/sources/cudart_texts.json)
    ("RuntimeError: CUDA error: GPU fabric is not ready within the probe wait budget; application may retry (see CUDA_FABRIC_INIT_TIMEOUT_MS)",
     "cudaErrorFabricNotReady"),
    ("RuntimeError: CUDA error: read as normalized float not supported for 32-bit non float type", "cudaErrorInvalidNormSetting"),
])
def test_texts_of_every_runtime_release(line, catalogue_name):
    (f,) = parse_text(line + "\n").facts
    assert f.catalogue_name == catalogue_name


# CUDA libraries' statuses, TensorFlow's cuDNN-initialisation message, CUDA's device-side assert line and
# XLA's out-of-memory status (issue 11 wild sweep round 5D: real pastes, fixtures/artefacts/cuda_app/README.md)
@pytest.mark.parametrize("name, library, status, condition, call", [
    ("cublas_status_sgemm.log", "cublas", "CUBLAS_STATUS_EXECUTION_FAILED", "EXECUTION_FAILED",
     "cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)"),
    ("cusolver_status_getrf.log", "cusolver", "CUSOLVER_STATUS_EXECUTION_FAILED", "EXECUTION_FAILED",
     "cusolverDnDgetrf( handle, m, n, dA, ldda, static_cast<double*>(dataPtr.get()), ipiv, info)"),
    ("cudnn_status_title.txt", "cudnn", "CUDNN_STATUS_EXECUTION_FAILED", "EXECUTION_FAILED", None),
    ("cudnn_status_bare.log", "cudnn", "CUDNN_STATUS_INTERNAL_ERROR", "INTERNAL_ERROR", None),
    ("tf_cudnn_init_failed.log", "cudnn", None, "NOT_INITIALIZED", None),
    ("xla_dnn_init_failed.txt", "cudnn", None, "NOT_INITIALIZED", None),
    ("cudnn_version_mismatch_tf1.log", "cudnn", None, "VERSION_MISMATCH", None),
    ("cudnn_no_algorithm_title.txt", "cudnn", None, "NO_USABLE_ALGORITHM", None),
])
def test_library_status(name, library, status, condition, call):
    assert cuda_app.detect((FIX / name).read_text())
    (f,) = [f for f in parse_file(name).facts if f.kind == "cuda_error"]
    assert (f.form, f.library, f.library_status, f.library_condition, f.call, f.catalogue_name) == (
        "library_status", library, status, condition, call, None)


@pytest.mark.parametrize("line, status, condition", [
    ("RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR", "CUFFT_INTERNAL_ERROR", "INTERNAL_ERROR"),
    ("2019-11-22 10:01:02.123456: E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_ALLOC_FAILED",
     "CUDNN_STATUS_ALLOC_FAILED", "ALLOC_FAILED"),
    ("e!         Error: CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER; Reason: rtc->loadModule()",
     "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER", "EXECUTION_FAILED_CUDA_DRIVER"),
    ("Check failed: status == CUDNN_STATUS_SUCCESS (4 vs. 0)  CUDNN_STATUS_INTERNAL_ERROR", "CUDNN_STATUS_INTERNAL_ERROR", "INTERNAL_ERROR"),
])
def test_library_status_lines(line, status, condition):
    (f,) = parse_text(line + "\n").facts
    assert (f.library_status, f.library_condition) == (status, condition)


@pytest.mark.parametrize("line", [
    "    if (status != CUBLAS_STATUS_SUCCESS) { return status; }",
    "plan = cufftPlan1d(&p, n, CUFFT_R2C, 1); cufftExecR2C(plan, in, out); // CUFFT_FORWARD",
    "CUDNN_STATUS_SOMETHING_NEW is not a status any header lists",
])
def test_library_status_negatives(line):
    assert parse_text(line + "\n").facts == []


def test_device_assert_lines_are_one_cuda_assert():
    r = parse_file("device_assert_index.log")
    assert [(f.evidence.line, f.catalogue_name, f.form) for f in r.facts] == [(2, "cudaErrorAssert", "device_assert")]
    assert r.lines_used == 7  # every complete assert line is read; the cut first and fifth are not


def test_xla_out_of_memory():
    r = parse_file("xla_resource_exhausted.log")
    assert [(f.kind, f.evidence.line, f.tried_bytes, f.device) for f in r.facts] == [("cuda_oom", 5, 6291456, None)]
    (f,) = parse_text("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 2.99GiB "
                      "(3206250496B) on device ordinal 0\n").facts
    assert (f.tried_bytes, f.device) == (3206250496, 0)


def test_cudnn_version_mismatch_repeated_is_one_error():
    r = parse_file("cudnn_version_mismatch.log")
    assert [(f.evidence.line, f.library_condition) for f in r.facts] == [(1, "VERSION_MISMATCH")]
    assert r.lines_used == 2


def test_tensorflow_gpu_out_of_memory():
    r = parse_file("tf_oom_bfc.log")
    # the OP_REQUIRES line names the GPU; the Python exception repeating it is cut before its device
    assert [(f.kind, f.evidence.line, f.device) for f in r.facts] == [("cuda_oom", 9, 0)]
    assert parse_text("ResourceExhaustedError: OOM when allocating tensor with shape[100,4096,32]\n").facts == []  # no GPU named
    assert parse_text("Resource exhausted: OOM when allocating tensor with shape[8] and type float on "
                      "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu\n").facts == []


def test_trtllm_no_peer_access_in_its_own_words():
    # NVIDIA/TensorRT-LLM#1374 (title): tensorrt_llm/_ipc_utils.py set_peer_access raises this when
    # cudaDeviceCanAccessPeer says 0: the two GPUs have no peer access, read as cudaErrorPeerAccessUnsupported
    line = "Runtime error with 2 GPU with 0.8.0/0.9.0dev (RuntimeError: Can't enable access between nodes 0 and 1)\n"
    assert cuda_app.detect(line)
    (f,) = parse_text(line).facts
    assert (f.catalogue_name, f.code, f.form) == ("cudaErrorPeerAccessUnsupported", 217, "trtllm_peer_access")
    assert parse_text("RuntimeError: Can't enable access between nodes 1 and 0\n").facts[0].form == "trtllm_peer_access"
    # without the two GPUs' numbers it is no such message
    assert parse_text("Can't enable access between nodes of the cluster\n").facts == []


def test_triton_out_of_resources():
    r = parse_file("triton_out_of_resources.log")
    assert [(f.evidence.line, f.error_name, f.catalogue_name, f.form) for f in r.facts] == [
        (1, "OutOfResources", "cudaErrorLaunchOutOfResources", "triton_out_of_resources")]
    (f,) = parse_text("triton.code_gen.OutOfResources: out of resource: shared memoryRequired: 110592Hardware limit: 101376\n").facts
    assert f.form == "triton_out_of_resources"


# gpu-burn's _checkError (wilicc/gpu-burn gpu_burn-drv.cpp): "Error (" or "Error in <desc> (", file:line, "): "
# and cuGetErrorString's text
@pytest.mark.parametrize("line,catalogue_name,src,src_line", [
    ("  what():  Error (gpu_burn-drv.cpp:298): system not yet initialized", "cudaErrorSystemNotReady", "gpu_burn-drv.cpp", 298),
    ("Couldn't init a GPU test: Error in load module (gpu_burn-drv.cpp:341): file not found",
     "cudaErrorFileNotFound", "gpu_burn-drv.cpp", 341),
    ("Failure during compute: Error in Read faultyelemdata (gpu_burn-drv.cpp:366): an illegal memory access was encountered",
     "cudaErrorIllegalAddress", "gpu_burn-drv.cpp", 366),
])
def test_gpu_burn_check_error(line, catalogue_name, src, src_line):
    assert cuda_app.detect(line)
    (f,) = parse_text(line).facts
    assert (f.catalogue_name, f.source_file, f.source_line, f.form) == (catalogue_name, src, src_line, "check_error")


def test_gpu_burn_real_h100_without_fabric_manager():
    r = parse_file("gpuburn92_h100_system_not_ready.txt")
    assert [(f.evidence.line, f.code) for f in r.facts] == [(8, 802), (10, 304)]


@pytest.mark.parametrize("line", [
    "Error (main.cpp:12): could not open config",   # not a CUDA text: no guess
    "Error in foo (bar.py:3): something",
])
def test_gpu_burn_check_error_negatives(line):
    assert parse_text(line).facts == []


def test_ggml_and_cuda_malloc_async_oom():
    # ollama/ollama#9782: ollama quoting ggml-cuda.cu's cudaMalloc failure, then ggml-alloc.c's buffer line (CUDA0: device 0)
    r = parse_file("ggml_cudamalloc_oom_ollama9782.log")
    assert [(f.kind, f.evidence.line, f.device, f.tried_bytes) for f in r.facts] == [
        ("cuda_oom", 2, None, None), ("cuda_oom", 3, 0, 838447104)]
    (f,) = parse_text("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 10966.43 MiB on device 1: "
                      "cudaMalloc failed: out of memory\n").facts
    assert (f.kind, f.device, f.tried_bytes) == ("cuda_oom", 1, round(10966.43 * (1 << 20)))
    (f,) = parse_text("llama_model_load: error loading model: unable to allocate CUDA0 buffer\n").facts
    assert (f.kind, f.device) == ("cuda_oom", 0)
    # Comfy-Org/ComfyUI#4852: the report names PyTorch's exception type; its message is cut
    r = parse_file("comfyui_error_report_oom_4852.txt")
    assert [(f.kind, f.evidence.line, f.device) for f in r.facts] == [("cuda_oom", 4, None)]
    (f,) = parse_text("torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)\n").facts
    assert (f.kind, f.device) == ("cuda_oom", 0)
    # near misses: a host buffer, a source line of an except clause, the class named in prose
    assert parse_text("alloc_tensor_range: failed to allocate CPU buffer of size 5064192000\n").facts == []
    assert parse_text("    except torch.cuda.OutOfMemoryError:\n").facts == []
    assert parse_text("catching torch.OutOfMemoryError is the documented way\n").facts == []


def test_ollama_driver_too_old():
    # ollama/ollama#6604: ollama's text for cudaSetDevice's CUDA_ERROR_INSUFFICIENT_DRIVER (35)
    r = parse_file("ollama_driver_too_old_6604.log")
    assert [(f.kind, f.evidence.line, f.catalogue_name) for f in r.facts] == [("cuda_error", 2, "cudaErrorInsufficientDriver")]


def test_jax_library_version_checks():
    for name, line, lib in (("jax_pjrt_version_mismatch_22416.log", 1, "pjrt"),
                            ):
        r = parse_file(name)
        assert [(f.evidence.line, f.library, f.library_condition) for f in r.facts] == [(line, lib, "VERSION_MISMATCH")], name
    # JAX's newer check (jax_plugins/cuda/__init__.py _make_msg, f"Outdated {name} installation found." for "cuDNN")
    (f,) = parse_text("Outdated cuDNN installation found.\n").facts
    assert (f.evidence.line, f.library, f.library_condition) == (1, "cudnn", "VERSION_MISMATCH")
    (f,) = parse_text("CUDA backend failed to initialize: Found CUDA version 12000, but JAX was built against version 12020, "
                      "which is newer.\n").facts
    assert (f.library, f.library_condition) == ("cuda", "VERSION_MISMATCH")
    # near misses: another program's installation, a newer library (no complaint)
    assert parse_text("ERROR: No Python installation found.\n").facts == []
    assert parse_text("Outdated Chrome installation found.\n").facts == []


def test_line_naming_a_catalogue_error_and_a_library_status_gives_both():
    """xingyul/sparse-winograd-cnn#4's title: the cuDNN status and the CUDA error of the catalogue, both read (the
    library's failure may be the other's consequence)."""
    r = parse_text("CUDA_ERROR_ILLEGAL_ADDRESS and CUDNN_STATUS_EXECUTION_FAILED in batchnorm when training\n")
    assert [(f.error_name, f.library_status) for f in r.facts] == [
        ("CUDNN_STATUS_EXECUTION_FAILED", "CUDNN_STATUS_EXECUTION_FAILED"), ("CUDA_ERROR_ILLEGAL_ADDRESS", None)]
    # the same name printed on a line of its own, or after a program's label, is read
    assert [f.error_name for f in parse_text("caught: CUDA_ERROR_ILLEGAL_ADDRESS\n").facts] == ["CUDA_ERROR_ILLEGAL_ADDRESS"]
    # a library's own line is one fact, as before
    assert [f.error_name for f in parse_text(
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm(...)`\n").facts] == [
        "CUBLAS_STATUS_EXECUTION_FAILED"]


def test_driver_call_named_beside_the_error():
    # nvbandwidth#46's title and nvbandwidth#44's CU_ASSERT line: the call the line names is kept
    r = parse_file("nvbandwidth_multinode_cumem_errors.txt")
    got = [(f.evidence.line, f.catalogue_name, f.code, f.api_call) for f in r.facts]
    assert got == [(1, "CUDA_ERROR_NOT_PERMITTED", 800, "cuMemCreate"),
                   (2, "CUDA_ERROR_INVALID_VALUE", 1, "cuMemSetAccess")]


def test_tensorflow_names_the_driver_call_without_parentheses():
    # tensorflow#30594 (XLA's StreamExecutor, TF 1.14): "failed call to cuDevicePrimaryCtxRetain: " + ToString(res)
    r = parse_file("tf30594_primary_ctx_retain_out_of_memory.log")
    got = [(f.evidence.line, f.catalogue_name, f.code, f.api_call) for f in r.facts]
    assert got == [(2, "CUDA_ERROR_OUT_OF_MEMORY", 2, "cuDevicePrimaryCtxRetain")]
    # tensorflow#7272 (TF 1.0, ToString gave the name alone), the line as posted
    r = parse_text("E tensorflow/core/common_runtime/direct_session.cc:135] Internal: failed initializing StreamExecutor for "
                   "CUDA device ordinal 0: Internal: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY; "
                   "total memory reported: 18446744073648275456\n")
    assert [(f.catalogue_name, f.api_call) for f in r.facts] == [("CUDA_ERROR_OUT_OF_MEMORY", "cuDevicePrimaryCtxRetain")]
    # an allocation's failure names no driver call: TensorFlow's "failed to allocate ... from device" (tensorflow#30912)
    r = parse_text("2019-07-21 23:23:06.228049: E tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed to allocate "
                   "32.00M (33554432 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n")
    assert [f.api_call for f in r.facts if f.kind == "cuda_error"] == [None]


@pytest.mark.parametrize("line", [
    "RuntimeError: CUDA error: operation not permitted",
    "CUDA_ERROR_NOT_PERMITTED: cublasSgemm(handle) failed",  # a library call is not a CUDA driver call
])
def test_no_driver_call_named(line):
    r = parse_text(line)
    assert [f.api_call for f in r.facts] == [None]


# aws/aws-ofi-nccl#346, the description's first sentence (verbatim): the stream status the reporter's code compares with
AWS_OFI_NCCL_346 = ("We are using EFA to do asynchronous ncclAllReduce over 120 ranks. Every once in a while and every few "
                    "hours, the operation breaks. We poll NCCL errors by first checking the scheduled stream status, and, if "
                    "it is equal to `cudaErrorNotReady`, we consequently check the communicator errors by calling "
                    "`ncclCommGetAsyncError`.")


@pytest.mark.parametrize("text,names", [
    (AWS_OFI_NCCL_346, []),                                            # a reporter's sentence names the status
    ("After the restart the call returns `cudaErrorNotReady` again.", []),
    ("Error: `cudaErrorNotReady`", ["cudaErrorNotReady"]),            # a program's label before the quoted name
    # the same paste with the program's own line under the sentence: that line still counts
    (AWS_OFI_NCCL_346 + "\nCUDA error: an illegal memory access was encountered", ["cudaErrorIllegalAddress"]),
    # PyTorch's hint quotes the name `...' (its closing quote is an apostrophe)
    ("Search for `cudaErrorDevicesUnavailable' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html "
     "for more information.", ["cudaErrorDevicesUnavailable"]),
])
def test_a_name_in_backticks_inside_a_sentence_is_the_reporters(text, names):
    assert cuda_app.detect(text) is bool(names)
    assert [f.error_name for f in parse_text(text + "\n").facts] == names


# TensorFlow's / XLA's Diagnostician after a failed cuInit: the kernel module and libcuda of different versions
def test_kernel_dso_version_mismatch_jax3568():
    r = parse_file("jax3568_kernel_dso_version_mismatch.log")
    (m,) = [f for f in r.facts if f.kind == "cuda_driver_library_mismatch"]
    assert (m.kernel_version, m.library_version, m.evidence.line) == ("440.36.0", "440.33.1", 4)


def test_reported_versions_differ_when_the_error_line_is_cut():
    # tensorflow/tensorflow#1158 as its thread stores it: the ERROR line cut inside "DSO version"
    text = ("2018-01-22 10:12:52.860623: E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: CUDA_ERROR_NO_DEVICE\n"
            "2018-01-22 10:12:52.860790: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] libcuda reported version is: 384.111.0\n"
            "2018-01-22 10:12:52.860907: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:193] kernel reported version is: 384.90.0\n"
            "2018-01-22 10:12:52.860934: E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:303] kernel version 384.90.0 does not match DSO versio\n")
    assert cuda_app.detect(text)
    (m,) = [f for f in parse_text(text).facts if f.kind == "cuda_driver_library_mismatch"]
    assert (m.kernel_version, m.library_version, m.evidence.line) == ("384.90.0", "384.111.0", 3)


@pytest.mark.parametrize("text", [
    # libcuda not loaded at all (a container started without the GPU's libraries): no version to compare
    "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] libcuda reported version is: Not found: was unable to find libcuda.so DSO loaded into this program\n"
    "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:193] kernel reported version is: 410.104.0\n",
    # the ERROR line with a status text on one side (DriverVersionStatusToString of a failed lookup)
    "E external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:262] kernel version 550.120.0 does not match DSO version NOT_FOUND: "
    "was unable to find libcuda.so DSO loaded into this program -- cannot find working devices in this configuration\n",
    # the same version on both sides
    "I cuda_diagnostics.cc:199] libcuda reported version is: 535.183.6\nI cuda_diagnostics.cc:203] kernel reported version is: 535.183.6\n",
])
def test_no_version_mismatch_without_two_different_versions(text):
    assert [f for f in parse_text(text).facts if f.kind == "cuda_driver_library_mismatch"] == []


# MXNet's CUDA_CALL (a glog CHECK of a boolean, then "CUDA: " and cudaGetErrorString's text): the error is the text,
# not cudaErrorCudartUnloading, which the printed expression only compares against
# (computer-animation-perception-group/sEMG-based-mscnn#2, the real line)
def test_mxnet_check_streams_the_error_text():
    line = ("/mxnet/dmlc-core/include/dmlc/./logging.h:235: src/storage/storage.cc:42: Check failed: e == cudaSuccess || "
            "e == cudaErrorCudartUnloading CUDA: CUDA driver version is insufficient for CUDA runtime version\n")
    assert cuda_app.detect(line)
    (f,) = parse_text(line).facts
    assert (f.catalogue_name, f.code, f.form) == ("cudaErrorInsufficientDriver", 35, "check_streamed")
    assert f.message == "CUDA driver version is insufficient for CUDA runtime version"


# DIGITS's device query prints the runtime's cudaError_t as a number after the call's name
# (NVIDIA/DIGITS#252 and #356, the real line; digits/device_query.py "%s() failed with error #%s")
@pytest.mark.parametrize("text,name", [
    ("cudaRuntimeGetVersion() failed with error #35\n", "cudaErrorInsufficientDriver"),
    ('So I am able to run DIGITS despite this error: "cudaRuntimeGetVersion() failed with error #35". What is causing this error?\n',
     "cudaErrorInsufficientDriver"),
    # a code the catalogue does not hold is not read (the form needs an entry)
    ("cudaGetDeviceCount() failed with error #9999\n", None),
])
def test_digits_call_failed_with_error_number(text, name):
    assert cuda_app.detect(text)
    assert [f.catalogue_name for f in parse_text(text).facts] == ([name] if name else [])


# TensorFlow's W-level notice of one GPU pair it could not give peer access; it goes on (gpu_device.cc EnablePeerAccess):
# read, no error (YangZeyu95/unofficial-implement-of-openpose#76, the real line, 10 GPUs: CUDA maps at most 8 peers)
def test_tensorflow_peer_access_notice_is_no_error():
    line = ("2021-04-26 20:35:39.266956: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1575] Unable to enable peer access "
            "between device ordinals 0 and 9, status: Internal: failed to enable peer access from 0x555ad3237be0 to 0x555ad618dae0: "
            "CUDA_ERROR_TOO_MANY_PEERS: peer mapping resources exhausted\n")
    r = parse_text(line)
    assert r.facts == [] and r.lines_used == 1
    # the same error raised by a program that stops on it stays an error
    assert [f.catalogue_name for f in parse_text("RuntimeError: CUDA error: peer mapping resources exhausted\n").facts] \
        == ["cudaErrorTooManyPeers"]


def test_torch_no_cuda_gpus_available_is_no_device():
    # torch's lazy CUDA init (c10 device_count_ensure_non_zero: TORCH_CHECK(count, "No CUDA GPUs are available")): the
    # driver answered and counted no device, cudaErrorNoDevice's meaning (google/gvisor pull request 10824, as pasted)
    text = ("  File \"/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 293, in _lazy_init\n"
            "    torch._C._cuda_init()\nRuntimeError: No CUDA GPUs are available \n")
    assert cuda_app.detect(text)
    (f,) = parse_text(text).facts
    assert (f.evidence.line, f.catalogue_name, f.code, f.form) == (3, "cudaErrorNoDevice", 100, "phrase")


# HPX's CUDA checks (libs/core/async_cuda check_cuda_error: "cuda function returned error code :" + cudaGetErrorString;
# HPX's executors and Octo-Tiger: "CUDA function returned error code " + cudaGetErrorString, then HPX's ":" before its
# next line): STEllAR-GROUP/octotiger#290's real lines, Summit, a jsrun resource set with fewer GPUs than the run used
@pytest.mark.parametrize("text,line,name", [
    ("{os-thread}: locality#2/worker-thread#1\n{what}: CUDA function returned error code invalid device ordinal:\n"
     "HPX(unhandled_exception)\n", 2, "cudaErrorInvalidDevice"),
    # HPX's async_cuda spelling, the text right after " :" (the format filled with cudaGetErrorString's text of 101)
    ("cuda function returned error code :invalid device ordinal\n", 1, "cudaErrorInvalidDevice"),
    # CONSTRUCTED near miss: a text the catalogue does not hold is not read, nor is its file claimed (the catch-all keeps it)
    ("CUDA function returned error code something else entirely:\n", None, None),
])
def test_hpx_cuda_function_returned_error_code(text, line, name):
    assert cuda_app.detect(text) is (name is not None)
    got = [(f.evidence.line, f.catalogue_name, f.form, f.message) for f in parse_text(text).facts]
    assert got == ([(line, name, "returned_code", "invalid device ordinal")] if name else [])


# TensorRT-LLM's check() (cpp/include/tensorrt_llm/common/cudaUtils.h: TllmException(file, line, fmtstr("[TensorRT-LLM][ERROR]
# CUDA runtime error in %s: %s", func, _cudaGetErrorEnum(result))), the exception adding " (file:line)"): the checked
# expression may hold "::", brackets and "->"; NVIDIA/TensorRT-LLM#1556's real lines (its pasted block and its title)
@pytest.mark.parametrize("text,name,call", [
    ("RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): out of memory "
     "(/app/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:118)\n", "cudaErrorMemoryAllocation", "cudaMallocAsync"),
    ("Mixtral 8x22b [TensorRT-LLM][ERROR] CUDA runtime error in cudaSetDevice(device): invalid device ordinal "
     "(/app/tensorrt_llm/cpp/tensorrt_llm/runtime/utils/sessionUtils.cpp:34)\n", "cudaErrorInvalidDevice", "cudaSetDevice"),
    # CONSTRUCTED near miss: a text the catalogue does not hold is not read, nor is its file claimed (the catch-all keeps it)
    ("[TensorRT-LLM][ERROR] CUDA runtime error in foo(x): something else entirely\n", None, None),
])
def test_trtllm_cuda_runtime_error_in(text, name, call):
    assert cuda_app.detect(text) is (name is not None)
    got = [(f.catalogue_name, f.form, f.api_call, f.source_line is not None) for f in parse_text(text).facts]
    assert got == ([(name, "runtime_error_in", call, True)] if name else [])


def test_triton_core_cuda_status_lines():
    # triton-inference-server/server#3098's real lines: Triton's metrics, pinned memory pool and CUDA memory manager each
    # end in cudaGetErrorString's text; one error of the process (cudaErrorInitializationError, 3), cited at its first line
    text = ("W0709 06:47:47.739722 149065 metrics.cc:188] failed to get device count, GPU metrics will not be available: initialization error\n"
            "W0709 06:47:47.761504 149065 pinned_memory_manager.cc:202] Unable to allocate pinned system memory, pinned memory pool will not be available: initialization error\n"
            "E0709 06:47:47.761553 149065 server.cc:182] Failed to initialize CUDA memory manager: unable to get number of CUDA devices: initialization error\n"
            "W0709 06:47:47.761565 149065 server.cc:189] failed to enable peer access for some device pairs\n")
    assert cuda_app.detect(text)
    r = parse_text(text)
    assert [(f.evidence.line, f.catalogue_name, f.code, f.form) for f in r.facts] == [(1, "cudaErrorInitializationError", 3, "triton_status")]
    assert r.lines_used == 3
    # the pinned pool refused by cudaHostAlloc for want of host memory (pinned_memory_manager.cc's format with
    # cudaGetErrorString(cudaErrorMemoryAllocation)) is no GPU allocation: not read, not claimed
    pinned_oom = ("W0709 06:47:47.761504 149065 pinned_memory_manager.cc:202] Unable to allocate pinned system memory, "
                  "pinned memory pool will not be available: out of memory\n")
    assert not cuda_app.detect(pinned_oom) and parse_text(pinned_oom).facts == []


@pytest.mark.parametrize("line, catalogue_name, code, printed", [
    # Paddle's build_nvidia_error_msg, "CUDA error(%d), %s. " (PaddlePaddle/PaddleDetection#8492, its title)
    ("OSError: (External) CUDA error(719), unspecified launch failure.", "cudaErrorLaunchFailure", 719,
     "unspecified launch failure"),
    # an older Paddle's "Cuda error(%d), %s." (PaddlePaddle/PaddleX#952, its title)
    ("Cuda error(3), initialization error.", "cudaErrorInitializationError", 3, "initialization error"),
    # a sentence quoting the workers' error (cloudrift-ai/emmy#558)
    ("A fresh 16× V100 host could not deploy at all. Every vLLM worker died at cudaGetDeviceCount() with error 802: "
     "system not yet initialized while nvidia-smi listed all 16 GPUs.", "cudaErrorSystemNotReady", 802,
     "system not yet initialized"),
])
def test_code_and_text_read_where_they_agree(line, catalogue_name, code, printed):
    assert cuda_app.detect(line)
    r = parse_text(line + "\n")
    assert [(f.catalogue_name, f.code, f.printed_code, f.form, f.message) for f in r.facts] == \
        [(catalogue_name, code, code, "code_and_text", printed)]
    assert r.lines_used == 1


@pytest.mark.parametrize("line", [
    # Paddle's NCCL status in the same shape: 2 is cudaErrorMemoryAllocation, whose text this is not
    "OSError: (External) NCCL error(2), unhandled system error.",
    # the NCCL status PyTorch forwards (vllm-project/vllm#5828's fixture): NUMBERED's shape, NCCL's text
    "RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)",
])
def test_code_and_text_not_read_where_they_disagree(line):
    assert [f for f in parse_text(line + "\n").facts if f.form == "code_and_text"] == []


def test_mlc_llm_memory_estimate_short():
    # mlc-ai/mlc-llm#2498: MLC LLM's engine found one GPU's share too small for the weights and buffers of its shard
    (f,) = parse_text((FIX / "mlc2498_insufficient_gpu_memory.log").read_text()).facts
    assert (f.kind, f.device, f.tried_bytes) == ("cuda_oom", None, round((18643.766 + 2977.048) * (1 << 20)))
    # the message cut before its figures is not read as an out-of-memory (CONSTRUCTED near miss)
    assert [x.kind for x in parse_text("TVMError: Insufficient GPU memory error: The available single GPU memory is\n").facts
            if x.kind == "cuda_oom"] == []


def test_ggml_no_device_code_read_once_with_the_launch_failure_after_it():
    # LostRuins/koboldcpp#1362: ggml's no_device_code (common.cuh) printed by five threads, then the host's error
    r = parse_file("koboldcpp1362_ggml_no_device_code_arch520.log")
    assert [(f.evidence.line, f.form, f.catalogue_name) for f in r.facts] == [
        (1, "ggml_no_device_code", None), (6, "torch", "cudaErrorLaunchFailure")]
    assert r.facts[0].message == ("ERROR: CUDA kernel mul_mat_vec has no device code compatible with CUDA arch 520. "
                                  "ggml-cuda.cu was compiled for: __CUDA_ARCH_LIST__")


@pytest.mark.parametrize("line, message", [
    # abetlen/llama-cpp-python#1624: quoted, cut where the reporter's paste ended (the arch not shown)
    ("> /home/runner/work/llama-cpp-python/llama-cpp-python/vendor/llama.cpp/ggml/src/ggml-cuda/template-instances/"
     "../mmq.cuh:2422: ERROR: CUDA kernel mul_mat_q has no device code compatible with",
     "ERROR: CUDA kernel mul_mat_q has no device code compatible with"),
    # LostRuins/koboldcpp#610's title: ggml-cuda.cu's bad_arch() before common.cuh (late 2023)
    ("Koboldcpp 1.55: ERROR: ggml-cuda was compiled without support for the current GPU architecture.",
     "ERROR: ggml-cuda was compiled without support for the current GPU architecture."),
])
def test_ggml_arch_forms(line, message):
    assert cuda_app.detect(line)
    assert [(f.form, f.message) for f in parse_text(line + "\n").facts] == [("ggml_no_device_code", message)]


@pytest.mark.parametrize("line", [
    # ggml's device listing: the architecture of a GPU that works (ikawrakow/ik_llama.cpp#370)
    "  Device 0: NVIDIA GeForce RTX 3090 Ti, compute capability 8.6, VMM: yes",
    # HIP's form of the message is AMD's (CONSTRUCTED from common.cuh's HIP branch): no CUDA build
    "mmq.cuh:2422: ERROR: HIP kernel mul_mat_q has no device code compatible with HIP arch 1030.",
])
def test_ggml_arch_near_misses_not_read(line):
    assert [f for f in parse_text(line + "\n").facts if f.form == "ggml_no_device_code"] == []


@pytest.mark.parametrize("line, path, status", [
    # ggml-cuda.cu's CUBLAS_CHECK under CUDA 12 (late 2023): the number is cublas_api.h's cublasStatus_t
    ("cuBLAS error 15 at tabby/crates/llama-cpp-bindings/llama.cpp/ggml-cuda.cu:7398: the requested functionality is not "
     "supported", "tabby/crates/llama-cpp-bindings/llama.cpp/ggml-cuda.cu", "CUBLAS_STATUS_NOT_SUPPORTED"),  # TabbyML/tabby#1154
    ("cuBLAS error 15 at ggml-cuda.cu:7956: the requested functionality is not supported", "ggml-cuda.cu",
     "CUBLAS_STATUS_NOT_SUPPORTED"),  # ollama/ollama#1874, compute capability 5.2
])
def test_ggml_cublas_check_numbered(line, path, status):
    assert cuda_app.detect(line)
    assert [(f.form, f.library, f.library_status, f.library_condition, f.source_file) for f in parse_text(line + "\n").facts] == \
        [("library_status", "cublas", status, status.removeprefix("CUBLAS_STATUS_"), path)]


@pytest.mark.parametrize("line", [
    # no cublasStatus_t has the number 2 (CONSTRUCTED): not read as any status
    "cuBLAS error 2 at ggml-cuda.cu:7956: something else",
    # a sentence naming the form, no location (CONSTRUCTED)
    "we saw a cuBLAS error at startup",
])
def test_ggml_cublas_check_near_misses_not_read(line):
    assert [f for f in parse_text(line + "\n").facts if f.library == "cublas"] == []


# --- wild sweep J2: cuDNN's frontend, CUTLASS's status, PyTorch's per-plan cuDNN warning -------------------------

def test_cudnn_frontend_no_plan_real_line():
    # YanWenKun/ComfyUI-Docker#140: ComfyUI's node name before PyTorch's AT_CUDNN_FRONTEND_CHECK message, in backticks
    r = parse_file("comfyui_docker140_cudnn_frontend_no_plans.txt")
    assert [(f.form, f.library, f.library_condition, f.evidence.line) for f in r.facts] == \
        [("library_status", "cudnn", "NO_USABLE_ALGORITHM", 1)]


@pytest.mark.parametrize("line", [
    # CONSTRUCTED from the format strings: PyTorch's AT_CUDNN_FRONTEND_CHECK ("cuDNN Frontend error: ", get_message())
    # with cudnn-frontend 1.5+'s check_support message (plans.h)
    "RuntimeError: cuDNN Frontend error: [cudnn_frontend] Error: No execution plans support the graph.",
    # TransformerEngine's NVTE_CHECK_CUDNN_FE ("cuDNN Error: ", err_msg, ". For more information, ...") with the frontend's
    # message before 1.5 (pre-release-4's plans.h), behind NVTE_ERROR's "<file>:<line> in function <fn>: "
    "RuntimeError: /te/transformer_engine/common/fused_attn/fused_attn_f16_arbitrary_seqlen.cu:227 in function operator(): "
    "cuDNN Error: [cudnn_frontend] Error: No execution plans built successfully.. For more information, enable cuDNN error "
    "logging by setting CUDNN_LOGERR_DBG=1 and CUDNN_LOGDEST_DBG=stderr in the environment.",
    # the heuristics' failure (every version: "No valid engine configs for " + operation_graph_tag)
    "RuntimeError: cuDNN Frontend error: No valid engine configs for Matmul_MUL_Reduction_SUB_EXP_Reduction_LOG_ADD_DIV_Matmul_",
])
def test_cudnn_frontend_forms(line):
    assert cuda_app.detect(line)
    assert [(f.library, f.library_condition) for f in parse_text(line + "\n").facts] == [("cudnn", "NO_USABLE_ALGORITHM")]


@pytest.mark.parametrize("line", [
    # the frontend's per-plan notes while it goes on to the next plan (plans.h): no failure (CONSTRUCTED from the strings)
    "[cudnn_frontend] Error: Deselecting execution plan with name eng0 at position 0 failed with CUDNN_STATUS_NOT_SUPPORTED",
    "[cudnn_frontend] Error: Workspace size is too large.",
    # a sentence about it (CONSTRUCTED)
    "cuDNN had no valid engine configs for that shape, so we disabled it",
])
def test_cudnn_frontend_near_misses_not_read(line):
    assert [f for f in parse_text(line + "\n").facts if f.library_condition == "NO_USABLE_ALGORITHM"] == []


def test_cutlass_status_real_line():
    # mit-han-lab/fouroversix#4: CUTLASS's CUTLASS_CHECK quoted in the reporter's sentence
    r = parse_file("fouroversix4_cutlass_error_internal.txt")
    assert [(f.library, f.library_status, f.library_condition, f.message) for f in r.facts] == \
        [("cutlass", "Error Internal", "INTERNAL_ERROR", "Got cutlass error: Error Internal at: 146")]


@pytest.mark.parametrize("line, status, condition", [
    # CONSTRUCTED from CUTLASS_CHECK's form with cutlassGetStatusString's texts (include/cutlass/cutlass.h)
    ("Got cutlass error: Error Misaligned Operand at: 88", "Error Misaligned Operand", "INVALID_VALUE"),
    ("Got cutlass error: Error Invalid Problem at line 211", "Error Invalid Problem", "INVALID_VALUE"),
    ("[/src/gemm.cu] Got cutlass error: Error Not Supported at: 57", "Error Not Supported", "NOT_SUPPORTED"),
    ("Got cutlass error: Error Architecture Mismatch at: 120", "Error Architecture Mismatch", "ARCH_MISMATCH"),
    ("Got cutlass error: Error Memory Allocation failed at: 64", "Error Memory Allocation", "ALLOC_FAILED"),
    # PyTorch's aten/src/ATen/native/cuda/MixedDtypesLinear.cu CUTLASS_STATUS_CHECK ("Got CUTLASS error: ", status string)
    ("RuntimeError: Got CUTLASS error: Error Workspace Null", "Error Workspace Null", "INVALID_VALUE"),
])
def test_cutlass_status_forms(line, status, condition):
    assert cuda_app.detect(line)
    assert [(f.library, f.library_status, f.library_condition) for f in parse_text(line + "\n").facts] == \
        [("cutlass", status, condition)]


def test_cutlass_insufficient_driver_is_cudas_insufficient_driver():
    # kErrorInsufficientDriver: "CUTLASS runs with a driver that is too old" (cutlass.h; CONSTRUCTED line)
    (f,) = parse_text("Got cutlass error: Error Insufficient Driver at: 301\n").facts
    assert (f.library, f.catalogue_name, f.library_condition) == ("cutlass", "cudaErrorInsufficientDriver", None)


@pytest.mark.parametrize("line", [
    "Got cutlass error: Invalid status at: 12",   # cutlassGetStatusString's default: says nothing (CONSTRUCTED)
    "Got cutlass error: Success at: 12",          # kSuccess is no failure (CONSTRUCTED)
    "if (status != cutlass::Status::kSuccess) { std::cerr << \"Got cutlass error: \" << cutlassGetStatusString(status); }",
])
def test_cutlass_near_misses_not_read(line):
    assert [f for f in parse_text(line + "\n").facts if f.library == "cutlass"] == []


@pytest.mark.parametrize("path", ["fixtures/artefacts/torch_log/pytorch121834_cudnn_plan_failed_warning.log",
                                  "fixtures/artefacts/torch_log/marieai124_cudnn_plan_failed_cudnnerror.log"])
def test_pytorch_cudnn_plan_warning_is_no_cuda_error(path):
    # PyTorch 2.3's warning for one cuDNN engine config it skipped (Conv_v8.cpp try_configs): the status it quotes is
    # the config's, not the program's (pytorch/pytorch#121834); torch_warnings reads the line as benign
    text = (ROOT / path).read_text()
    assert [f for f in cuda_app.parse(Artefact(path="a.log", text=text, node="node1")).facts if f.kind == "cuda_error"] == []


def test_engine_not_found_after_plan_warnings_still_read():
    # the convolution's own failure once no config ran (Conv_v8.cpp: "GET was unable to find an engine ...")
    text = (ROOT / "fixtures/artefacts/torch_log/pytorch121834_cudnn_plan_failed_warning.log").read_text()
    text += "RuntimeError: GET was unable to find an engine to execute this computation\n"
    assert [(f.library, f.library_condition) for f in parse_text(text).facts] == [("cudnn", "NO_USABLE_ALGORITHM")]


def test_mem_efficient_attention_no_kernel():
    # open-compass/VLMEvalKit#330: PyTorch's memory-efficient SDPA (and xformers', onnxruntime's) after its kernel table
    # had none for the GPU and the inputs: TORCH_CHECK(kernel_launched, "cutlassF: no kernel found to launch!")
    r = parse_file("vlmevalkit330_sdpa_cutlassf_no_kernel.txt")
    assert [(f.form, f.message, f.library_condition, f.evidence.line) for f in r.facts] == \
        [("mem_eff_attention_no_kernel", "cutlassF: no kernel found to launch!", None, 18)]
    # the backward's check (CONSTRUCTED from attention_backward.cu), under xformers' op wrapper
    line = "RuntimeError: cutlassB: no kernel found to launch!"
    assert cuda_app.detect(line)
    assert [f.form for f in parse_text(line + "\n").facts] == ["mem_eff_attention_no_kernel"]
    # near misses (CONSTRUCTED): another word before it, no pass letter
    for line in ("RuntimeError: mycutlassF: no kernel found to launch!", "cutlass: no kernel found to launch!"):
        assert [f for f in parse_text(line + "\n").facts if f.form == "mem_eff_attention_no_kernel"] == []


def test_cufile_progress_lines_are_left_to_cufile_log():
    # gds-nvidia-fs#78: libcufile's P2PDMA probe at INFO level, on a host where gdsio then wrote through GDS
    text = (ROOT / "fixtures/artefacts/cufile_log/gdsnvidiafs78_trace_p2pdma_probe.log").read_text()
    assert parse_text(text).facts == []
    # the same error name in an application's own line is still read
    got = parse_text("cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_NOT_SUPPORTED: operation not supported\n").facts
    assert [f.error_name for f in got] == ["CUDA_ERROR_NOT_SUPPORTED"]
    assert not cuda_app.detect(text)


# --- wild sweep P2: NVRTC's status names (nvrtcGetErrorString) -----------------------------------------------------

def test_nvrtc_status_real_line():
    # NVIDIA/TransformerEngine#1018: NVTE_CHECK_NVRTC behind NVTE_ERROR's "<file>:<line> in function <fn>: "
    r = parse_file("te1018_nvrtc_error_compilation.txt")
    assert [(f.form, f.library, f.library_status, f.library_condition, f.evidence.line) for f in r.facts] == \
        [("library_status", "nvrtc", "NVRTC_ERROR_COMPILATION", "COMPILATION", 5)]


@pytest.mark.parametrize("line, condition", [
    # CONSTRUCTED from CuPy's NVRTCError (the name, then the number in brackets)
    ("cupy.cuda.nvrtc.NVRTCError: NVRTC_ERROR_COMPILATION (6)", "COMPILATION"),
    # CONSTRUCTED: NVTE_CHECK_NVRTC with a CUDA 12 status (nvrtc.h: NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED = 14)
    ("RuntimeError: /te/transformer_engine/common/util/rtc.cpp:231 in function compile: NVRTC Error: "
     "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED", "PCH_CREATE_HEAP_EXHAUSTED"),
    ("NVRTC Error: NVRTC_ERROR_BUILTIN_OPERATION_FAILURE", "BUILTIN_OPERATION_FAILURE"),
])
def test_nvrtc_status_forms(line, condition):
    assert cuda_app.detect(line)
    assert [(f.library, f.library_condition) for f in parse_text(line + "\n").facts] == [("nvrtc", condition)]


@pytest.mark.parametrize("line", [
    # a success test in code, and a name no nvrtcResult has (CONSTRUCTED)
    "    if (res != NVRTC_SUCCESS) { return res; }",
    "NVRTC_ERROR_SOMETHING_ELSE happened",
])
def test_nvrtc_status_negatives(line):
    assert [f for f in parse_text(line + "\n").facts if f.library == "nvrtc"] == []


# --- wild sweep P2: cuda-gdb's kernel exceptions (NVIDIA/cuda-gdb include/gdb/signals.def) ---------------------------

def test_cuda_gdb_exception_real_line():
    # Dao-AILab/flash-attention#470: the tail of gdb's "received signal CUDA_EXCEPTION_6, Warp Misaligned Address."
    r = parse_file("flash_attn470_cuda_gdb_warp_misaligned.txt")
    assert [(f.form, f.catalogue_name, f.code, f.evidence.line) for f in r.facts] == \
        [("cuda_gdb_exception", "cudaErrorMisalignedAddress", 716, 12)]


@pytest.mark.parametrize("line, name", [
    # CONSTRUCTED from gdb's print_signal_received_reason and signals.def's CUDA_EXCEPTION_14
    ('Thread 1 "python" received signal CUDA_EXCEPTION_14, Warp Illegal Address.', "cudaErrorIllegalAddress"),
    # CONSTRUCTED from cuda-exceptions.c print_exception_name ("\nCUDA Exception: " + the signal's string)
    ("CUDA Exception: Warp Illegal Instruction", "cudaErrorIllegalInstruction"),
    ("CUDA Exception: Device Illegal Address", "cudaErrorIllegalAddress"),
    ('Thread 1 "a.out" received signal CUDA_EXCEPTION_12, Warp Assert.', "cudaErrorAssert"),
    # CUDA_EXCEPTION_17 (cuda-gdb at afd75cab; the string in lower case after its first word)
    ('Thread 1 "a.out" received signal CUDA_EXCEPTION_17, Cluster target block not present.', "cudaErrorLaunchFailure"),
])
def test_cuda_gdb_exception_forms(line, name):
    assert cuda_app.detect(line)
    assert [(f.form, f.catalogue_name) for f in parse_text(line + "\n").facts] == [("cuda_gdb_exception", name)]


@pytest.mark.parametrize("line", [
    # a sentence naming an exception code, and a string no exception has (CONSTRUCTED)
    "we hit CUDA_EXCEPTION_6 yesterday on one node",
    "CUDA Exception: Something Else Entirely",
])
def test_cuda_gdb_exception_negatives(line):
    assert [f for f in parse_text(line + "\n").facts if f.form == "cuda_gdb_exception"] == []


def test_cuda_gdb_exception_table_names_catalogue_entries():
    # every exception string maps to an error the catalogue has
    assert all(cuda_app.catalogue.by_name(n) is not None for n in cuda_app.CUDA_GDB_EXCEPTIONS.values())


# --- wild sweep P2: cublasGetStatusString's texts behind TransformerEngine's "cuBLAS Error: " ------------------------

@pytest.mark.parametrize("name, condition", [
    ("te376_cublas_error_not_supported.txt", "NOT_SUPPORTED"),  # NVIDIA/TransformerEngine#376, TE < 1.0 "CUBLAS Error: "
    ("slime1622_te_cublas_error_failed_to_launch_title.txt", "EXECUTION_FAILED"),  # THUDM/slime#1622, NVTE_CHECK_CUBLAS
])
def test_cublas_status_text_real_lines(name, condition):
    r = parse_file(name)
    assert [(f.form, f.library, f.library_status, f.library_condition) for f in r.facts] == \
        [("library_status", "cublas", "CUBLAS_STATUS_" + condition, condition)]


@pytest.mark.parametrize("line, condition", [
    # CONSTRUCTED: NVTE_CHECK_CUBLAS with the texts of CUBLAS_STATUS_INTERNAL_ERROR, _INVALID_VALUE and _ALLOC_FAILED
    ("RuntimeError: /te/transformer_engine/common/gemm/cublaslt_gemm.cu:102 in function cublas_gemm: cuBLAS Error: "
     "an internal operation failed", "INTERNAL_ERROR"),
    ("RuntimeError: /te/transformer_engine/common/gemm/cublaslt_gemm.cu:412 in function cublas_gemm: cuBLAS Error: "
     "an unsupported value or parameter was passed to the function", "INVALID_VALUE"),
    ("cuBLAS Error: the resource allocation failed", "ALLOC_FAILED"),
])
def test_cublas_status_text_forms(line, condition):
    assert cuda_app.detect(line)
    assert [(f.library, f.library_condition) for f in parse_text(line + "\n").facts] == [("cublas", condition)]


@pytest.mark.parametrize("line", [
    # a text no cublasStatus_t has, and the words in a sentence without the check's label (CONSTRUCTED)
    "cuBLAS Error: the weather was bad",
    "we think an internal operation failed in cuBLAS",
])
def test_cublas_status_text_negatives(line):
    assert [f for f in parse_text(line + "\n").facts if f.library == "cublas"] == []


# A paste that ends inside its last line (the excerpt or the reporter cut it). CONSTRUCTED from PyTorch's
# "CUDA error: " + cudaGetErrorString(err) (c10/cuda/CUDAException.cpp) and cudaErrorIllegalAddress's text "an illegal
# memory access was encountered", cut after "acc"; no real cut paste of this form was found in an even thread.
CUT_TRACEBACK = ('Traceback (most recent call last):\n  File "train.py", line 10, in <module>\n    loss.backward()\n'
                 "RuntimeError: CUDA error: an illegal memory acc")


@pytest.mark.parametrize("text, line", [
    (CUT_TRACEBACK, 4), (CUT_TRACEBACK + "\n", 4), (CUT_TRACEBACK + "\n\n", 4),
    # CONSTRUCTED: PyTorch <= 1.4's THCudaCheck wording, its CUDA <= 9 number (77) not compared with today's 700
    ("RuntimeError: cuda runtime error (77) : an illegal memory acc", 1),
])
def test_cut_last_line_names_the_one_error_it_begins(text, line):
    r = parse_text(text)
    assert [(f.evidence.line, f.catalogue_name, f.code, f.message) for f in r.facts] == [
        (line, "cudaErrorIllegalAddress", 700, "an illegal memory acc")]
    assert [(h.limit, h.line) for h in r.limits] == [("cut_short", line)]
    assert "cut short (an illegal memory acc): read as cudaErrorIllegalAddress" in r.limits[0].detail


@pytest.mark.parametrize("text", [
    # CONSTRUCTED: the same cut line inside the text (a line follows it): not the paste's end, read as printed
    "RuntimeError: CUDA error: an illegal memory acc\nterminate called after throwing an instance of 'c10::Error'\n",
    # CONSTRUCTED: a prefix of two texts ("peer access is not supported between these two devices", "peer access is
    # already enabled"); one under CUT_MIN_CHARS characters ("out of me"); a number that names another error
    "RuntimeError: CUDA error: peer access is",
    "RuntimeError: CUDA error: out of me",
])
def test_cut_text_not_resolved_when_ambiguous_or_inside(text):
    r = parse_text(text)
    assert all(f.catalogue_name is None for f in r.facts) and r.limits == []


def test_torch_tensorrt_device_count_status_real():
    # triton-inference-server/server#4050 (Jetson NX): Torch-TensorRT's cudaGetDeviceCount() status, a bare cudaError_t
    r = parse_file("triton4050_torch_tensorrt_device_count_status_999.log")
    assert [(f.evidence.line, f.catalogue_name, f.code, f.printed_code, f.form) for f in r.facts] == [
        (2, "cudaErrorUnknown", 999, 999, "discovery_status")]


@pytest.mark.parametrize("line, name", [
    # CONSTRUCTED in the form of ollama 0.5-0.11's discover/gpu.go (the text of discover/gpu_info_nvcuda.c's
    # "cuda driver library init failure: %d", cuInit's CUresult), the library path chosen
    ('time=2025-08-30T09:03:23.843-05:00 level=WARN source=gpu.go:605 msg="unknown error initializing cuda driver library '
     '/usr/lib/x86_64-linux-gnu/libcuda.so.575.64.03: cuda driver library init failure: 999. see '
     'https://github.com/ollama/ollama/blob/main/docs/troubleshooting.md for more information"', "CUDA_ERROR_UNKNOWN"),
    # ollama/ollama#12352's title (the status alone): cuInit's CUresult 205
    ("cuda driver library init failure: 205", "CUDA_ERROR_MAP_FAILED"),
    # CONSTRUCTED: the verbose log of discover/gpu_info_nvcuda.c (LOG(verbose, "cuInit err: %d\n", ret)), a CUresult
    ("cuInit err: 802", "CUDA_ERROR_SYSTEM_NOT_READY"),
    # CONSTRUCTED: discover/gpu_info_cudart.c's "cudart init failure: %d" and its verbose "cudaSetDevice err: %d", a cudaError_t
    ('msg="Unable to load cudart" library=/usr/local/cuda/lib64/libcudart.so.12.4.127 error="cudart init failure: 999"',
     "cudaErrorUnknown"),
    ("cudaSetDevice err: 100", "cudaErrorNoDevice"),
])
def test_discovery_status_numbers(line, name):
    assert cuda_app.detect(line)
    (f,) = parse_text(line).facts
    assert (f.catalogue_name, f.form) == (name, "discovery_status")


@pytest.mark.parametrize("line", [
    "cuda driver library init failure: 12345",  # no CUDA status of that number: not read
    "WARNING: [Torch-TensorRT] - Unable to read CUDA capable devices. Return status: 4242",
    "the plugin init failure: 3 retries left",  # another program's "init failure" without a CUDA library named
])
def test_discovery_status_unknown_numbers_not_read(line):
    assert parse_text(line).facts == []


@pytest.mark.parametrize(("name", "catalogue_name"), [
    # real (pytorch/pytorch#147626, #70036): PyTorch's ROCm build, HIP's text or (older) the error's name
    ("pytorch147626_hip_error_invalid_device_function.txt", "cudaErrorInvalidDeviceFunction"),
    ("pytorch70036_hip_error_hiperrornodevice.txt", "cudaErrorNoDevice"),
    ("pytorch70036_no_hip_gpus_available.txt", "cudaErrorNoDevice"),
    # real (llnl/smith#1586): rocThrust's "<what>: hipErrorX: <text>", HIP's name outside PyTorch's "HIP error: "
    ("smith1586_rocthrust_hiperror_name_and_text.txt", "cudaErrorInvalidDeviceFunction"),
])
def test_hip_errors_read_as_their_cuda_twins(name, catalogue_name):
    assert cuda_app.detect((FIX / name).read_text())
    (f,) = [f for f in parse_file(name).facts if f.kind == "cuda_error"]
    assert f.catalogue_name == catalogue_name


@pytest.mark.parametrize("line", [
    # CONSTRUCTED: a HIP name no CUDA twin has, and the boilerplate alone, make no catalogue error
    "RuntimeError: HIP error: hipErrorNotAnError",
    "For debugging consider passing AMD_SERIALIZE_KERNEL=3",
])
def test_hip_lines_without_a_cuda_twin(line):
    assert [f for f in parse_text(line + "\n").facts if f.kind == "cuda_error" and f.catalogue_name] == []


@pytest.mark.parametrize(("line", "catalogue_name"), [
    # CONSTRUCTED from HIP's hip_code_object.cpp: guarantee(false && "hipErrorNoBinaryForGpu: Unable to find code object
    # for all current devices!"), the runtime's abort when its fat binary has no code object for the GPU's gfx target
    ('"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"', "cudaErrorNoKernelImageForDevice"),
    # CONSTRUCTED: a HIP_CHECK macro's "<call> failed: <name>" (hipGetErrorName only)
    ("hipMalloc(&d, bytes) failed: hipErrorOutOfMemory", "cudaErrorMemoryAllocation"),
])
def test_a_hip_name_alone_reads_as_its_cuda_twin(line, catalogue_name):
    assert cuda_app.detect(line)
    (f,) = [f for f in parse_text(line + "\n").facts if f.kind == "cuda_error"]
    assert (f.error_name.startswith("hipError"), f.catalogue_name) == (True, catalogue_name)


@pytest.mark.parametrize("line", [
    # CONSTRUCTED: a HIP name no CUDA twin has, and one a reporter's sentence quotes in backticks
    "hipErrorNotAnError: no error",
    "we compare the status with `hipErrorNotReady` before we poll the stream again",
])
def test_a_hip_name_that_is_no_error_output_is_not_read(line):
    assert [f for f in parse_text(line + "\n").facts if f.kind == "cuda_error" and f.catalogue_name] == []


def test_torch_device_index_assert_reads_as_invalid_device_ordinal():
    # real (OpenRLHF/OpenRLHF#866): PyTorch's AT_ASSERT(device >= 0 && device < num_gpus) under a vLLM Ray worker's prefix
    name = "openrlhf866_ray_worker_deferred_cuda_device_index.log"
    assert cuda_app.detect((FIX / name).read_text())
    (f,) = [f for f in parse_file(name).facts if f.kind == "cuda_error"]
    assert (f.catalogue_name, f.form, f.pid) == ("cudaErrorInvalidDevice", "torch_device_index", 392789)


@pytest.mark.parametrize("line", [
    # CONSTRUCTED: the assert's words in a reporter's sentence without PyTorch's "INTERNAL ASSERT FAILED", and another
    # INTERNAL ASSERT of PyTorch's
    "we check device >= 0 && device < num_gpus before we call set_device",
    'RuntimeError: !at::cuda::is_available() INTERNAL ASSERT FAILED at "../aten/src/ATen/cuda/CUDAContext.cpp":12',
])
def test_other_asserts_are_not_the_device_index_one(line):
    assert [f for f in parse_text(line + "\n").facts if f.kind == "cuda_error" and f.form == "torch_device_index"] == []


def test_gpu_coredump_line_is_read():
    # real (sgl-project/sglang#6590): the CUDA driver's line before a scheduler's traceback cut short
    name = "sglang6590_gpu_coredump_scheduler_traceback_cut.txt"
    assert cuda_app.detect((FIX / name).read_text())
    facts = parse_file(name).facts
    assert [(f.kind, f.evidence.line) for f in facts] == [("cuda_gpu_coredump", 1)]


@pytest.mark.parametrize("line", [
    # CONSTRUCTED: prose about the feature, and a script's echo of its setting, are no dump
    "Starting GPU coredump generation is slow on large models, so we left it off",
    "export CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1",
])
def test_gpu_coredump_prose_is_not_read(line):
    assert [f for f in parse_text(line + "\n").facts if f.kind == "cuda_gpu_coredump"] == []


def test_rocblas_without_a_device_reads_as_no_device():
    # real (likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU#6): rocBLAS's Tensile host found no GPU
    name = "rocmlibs6_rocblas_tensile_no_devices.txt"
    assert cuda_app.detect((FIX / name).read_text())
    (f,) = [f for f in parse_file(name).facts if f.kind == "cuda_error"]
    assert (f.catalogue_name, f.form) == ("cudaErrorNoDevice", "rocblas_no_device")


def test_rocblas_other_tensile_errors_are_not_no_device():
    # CONSTRUCTED: rocBLAS's other Tensile host message (its library files unreadable) is not a missing GPU
    line = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Illegal seek"
    assert [f for f in parse_text(line + "\n").facts if f.kind == "cuda_error" and f.form == "rocblas_no_device"] == []


@pytest.mark.parametrize("line, catalogue_name, printed, source", [
    # real: THUDM/slime#1786 (torch_memory_saver's CUDA_ERROR_CHECK, csrc/utils.h, as Ray repeats it)
    ("[torch_memory_saver.cpp] cudaError error: 1 (invalid argument) file=csrc/core.cpp func=pause line=133 "
     "[repeated 2x across cluster].", "cudaErrorInvalidValue", 1, ("csrc/core.cpp", 133)),
    # CONSTRUCTED from csrc/utils.h CURESULT_CHECK ("CUresult error: " << code << " (" << cuGetErrorString << ") "
    # << " file=" ...: two spaces before file=): a driver call's code 2, read by its text as the catalogue reads
    # "out of memory" (the runtime's twin, the same code and text)
    ("[torch_memory_saver.cpp] CUresult error: 2 (out of memory)  file=csrc/core.cpp func=malloc line=66",
     "cudaErrorMemoryAllocation", 2, ("csrc/core.cpp", 66)),
])
def test_torch_memory_saver_cuda_checks(line, catalogue_name, printed, source):
    assert cuda_app.detect(line)
    (f,) = parse_text(line + "\n").facts
    assert (f.form, f.catalogue_name, f.printed_code, (f.source_file, f.source_line)) == \
        ("memory_saver", catalogue_name, printed, source)


def test_torch_memory_saver_fixture_and_its_own_notices():
    (f,) = parse_file("slime1786_torch_memory_saver_pause_cudaerror.txt").facts
    assert f.catalogue_name == "cudaErrorInvalidValue"
    # its other lines say no CUDA error (csrc/core.cpp): a refused pause, its trace of a call (CONSTRUCTED from the source)
    for line in ("[torch_memory_saver.cpp] Cannot pause allocation that is not active. tag=default ptr=0x7f0000000000 "
                 "file=csrc/core.cpp func=pause line=183",
                 "[torch_memory_saver.cpp] TorchMemorySaver.pause ptr=0x7f0000000000 size=2097152 tag=default"):
        assert parse_text(line + "\n").facts == []


def test_triton_gpu_too_old_is_read():
    # real (MIC-DKFZ/nnUNet#2188): PyTorch inductor's check of the GPU before Triton compiles for it
    name = "nnunet2188_triton_gpu_too_old.txt"
    assert cuda_app.detect((FIX / name).read_text())
    (f,) = [f for f in parse_file(name).facts if f.kind == "cuda_error"]
    assert f.form == "triton_gpu_too_old" and f.message.startswith("Found NVIDIA GeForce GTX 1080 Ti which is too old")


@pytest.mark.parametrize("line", [
    # CONSTRUCTED: prose about Triton's floor and code that compares a capability name no GPU
    "Triton supports GPUs of compute capability 7.0 and later.",
    "if device_props.major < 7: raise GPUTooOldForTriton(device_props, inspect.currentframe())",
])
def test_triton_floor_in_prose_is_not_read(line):
    assert [f for f in parse_text(line + "\n").facts if f.kind == "cuda_error"] == []


@pytest.mark.parametrize("line, lib, condition", [
    # CONSTRUCTED from PyTorch's and TransformerEngine's checks, each cut where a narrow paste or a title ends it
    ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAI", "cublas", "EXECUTION_FAILED"),
    ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZ", "cudnn", "NOT_INITIALIZED"),
    ("RuntimeError: /tmp/pip-req-build-5_wk8tph/transformer_engine/common/include/transformer_engine/logging.h:38 in "
     "function check_cublas_: CUBLAS Error: the requested functionality is not suppo", "cublas", "NOT_SUPPORTED"),
    # real (NVIDIA/Megatron-LM#1882's title): TransformerEngine's cuDNN check cut before its status
    ("[QUESTION] fused_attn_f16_arbitrary_seqlen.cu:373 in function operator(): cuDNN Error", "cudnn", "STATUS_CUT_OFF"),
])
def test_library_status_cut_at_the_line_end(line, lib, condition):
    assert cuda_app.detect(line)
    (f,) = [f for f in parse_text(line + "\n").facts if f.kind == "cuda_error"]
    assert (f.form, f.library, f.library_condition) == ("library_status", lib, condition)


@pytest.mark.parametrize("line", [
    # CONSTRUCTED: cut where two statuses begin so (NOT_INITIALIZED / NOT_SUPPORTED; the two SUBLIBRARY_ ones), a cut
    # text too short to name one, and a cut name inside a sentence (not at the line's end)
    "RuntimeError: CUDA error: CUBLAS_STATUS_NOT",
    "cudnn_status: CUDNN_STATUS_SUBLIB",
    "RuntimeError: /te/logging.h:38 in function check_cublas_: CUBLAS Error: the fu",
    "we saw CUBLAS_STATUS_EXECUTION_FAI and more",
])
def test_cut_status_that_names_no_one_status_is_not_read(line):
    assert [f for f in parse_text(line + "\n").facts if f.kind == "cuda_error" and f.form == "library_status"] == []

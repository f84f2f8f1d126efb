"""An application's own CUDA error output (PyTorch, CuPy, Numba, TensorFlow, vLLM/sglang, CUDA C++).

Made by the application's stderr: ``python train.py 2>&1 | tee app.log``. Such lines sit in
Python tracebacks, torchrun logs and pasted terminal sessions, so they are looked for
anywhere in a file, in every form applications print a CUDA error. Sample lines (real, from
the public threads named)::

    RuntimeError: CUDA error: uncorrectable ECC error encountered                                  (jade-hpc-gpu#194)
    torch.AcceleratorError: CUDA error: CUDA-capable device(s) is/are busy or unavailable          (dra-driver-nvidia-gpu#982)
    Search for `cudaErrorDevicesUnavailable' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.
    Failed: Cuda error /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:307 'peer access is not supported between these two devices'
    cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered
    RuntimeError: The NVIDIA driver on your system is too old (found version 11060). Please update your GPU driver ...
    UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). ... Error 802: system not yet initialized
    RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THC/generic/THCTensorMath.cu:26
    > > ggml_cuda_init: failed to initialize CUDA: system not yet initialized                     (ollama#12136)
    ... CUDA failure 100: no CUDA-capable device is detected ; GPU=32712 ; hostname=HOME-PC ; file=... ; expr=cudaSetDevice(info_.device_id);   (onnxruntime, insightface#2524)
    Failed to allocate device vector A (error code CUDA driver version is insufficient for CUDA runtime version)!   (CUDA samples, cubecos#312)
    F1206 16:55:19.914152  3830 parallel.cpp:85] Check failed: error == cudaSuccess (2 vs. 0)  out of memory   (Caffe, CaffeOnSpark#204)
    Check failed: CUDA_SUCCESS == dynload::cuCtxSetCurrent(context) (0 vs. 216)                                   (TensorFlow, tensorflow#526)
    src/storage/storage.cc:42: Check failed: e == cudaSuccess || e == cudaErrorCudartUnloading CUDA: CUDA driver version is insufficient for CUDA runtime version   (MXNet, sEMG-based-mscnn#2)
    cudaRuntimeGetVersion() failed with error #35                                                                   (DIGITS, DIGITS#252)
    error: peer access is not supported between these two device                                                  (a bare CUDA message, Nanoflow#22)
    {what}: CUDA function returned error code invalid device ordinal:                    (HPX's CUDA check, octotiger#290)
    RuntimeError: Can't enable access between nodes 0 and 1                                          (TensorRT-LLM's own words, TensorRT-LLM#1374)
    torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB. GPU 0 has a total capacity of 23.65 GiB of which 11.06 MiB is free. ...

Each is resolved through ``knowledge/cuda_errors.yaml`` (:mod:`cuda_error_catalogue`): by
the name when one is printed, else by the ``cudaGetErrorString`` text (or an older or
PyTorch wording of it), else by the number, so the fact carries the code and the catalogue
name whatever the spelling. A number is read in the API it came from: a driver call's or
``CUDA_SUCCESS``'s is a ``CUresult``, a runtime call's or ``cudaSuccess``'s a ``cudaError_t``
(4 is CUDA_ERROR_DEINITIALIZED in the one, cudaErrorCudartUnloading in the other). A line with
no marker at all is still read when it holds a catalogue message of five words or more (a bare
``peer access is not supported between these two devices``, its last word possibly cut short). Lines that are NCCL's own messages (``NCCL WARN ...``, NCCL's
NVLS bind error, the text after PyTorch's ``Last error:``) are left to the NCCL facts.

Facts: ``cuda_error`` (one per distinct error on a node, rank and process: the traceback's
``Search for `cudaErrorX'`` line and ``what():`` repeats are the same error) and
``cuda_oom`` for PyTorch's out-of-memory message (every form, 0.4 to 2.11: what was asked,
the GPU's total and free memory, what PyTorch holds, what other processes hold).
Empty input, or output without CUDA errors, yields no facts.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.app import (  # noqa: F401 - the fact classes live in facts/kinds
    CudaDriverLibraryMismatch, CudaError, CudaGpuCoredump, CudaOom,
)
from stethoscope.facts.parsers import cuda_error_catalogue as catalogue
from stethoscope.facts.parsers import cuda_oom_message as oom_message
from stethoscope.facts.parsers import cufile_log
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, last_line
from stethoscope.facts.parsers.torch_log_lines import global_rank, marked_lines

KIND = "cuda_app"


# --- the forms, each with a real line -------------------------------------------------------
# caught: cudaErrorIllegalAddress: an illegal memory access was encountered
# numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_NO_DEVICE (100)
# Search for `cudaErrorDevicesUnavailable' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.
# CUDA error at simpleP2P.cu:98 code=217(cudaErrorPeerAccessUnsupported) "cudaDeviceEnablePeerAccess(gpuid[1], 0)"
# > C++ exception with description "scan failed on 2nd step: hipErrorInvalidDeviceFunction: invalid device function" thrown in SetUp().
#   (llnl/smith#1586: rocThrust's system_error, "<what>: " + hipGetErrorName + ": " + hipGetErrorString, as Thrust's
#   CUDA backend prints "<what>: cudaErrorX: <text>"; HIP's names are CUDA's runtime ones with hip for cuda, their
#   codes and texts the same: cuda_error_catalogue.cuda_name reads one as its CUDA twin)
# "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"   (CONSTRUCTED from HIP's
#   hip_code_object.cpp guarantee(false && "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"))
NAME = re.compile(r"\b(?P<name>cudaError[A-Z]\w*|hipError[A-Z]\w*|CUDA_ERROR_[A-Z][A-Z_]*[A-Z])\b")
NAME_PREFIXES = ("cudaError", "hipError", "CUDA_ERROR_")

# RuntimeError: CUDA error: an illegal memory access was encountered
#   what():  CUDA error: an illegal memory access was encountered
# RuntimeError: Triton Error [CUDA]: device kernel image is invalid
# ggml_cuda_compute_forward: CUDA Error: no kernel image is available for execution on the device
# {"error":{"message":"timed out waiting for llama runner to start:CUDA error:uncorrectable ECC error encountered\
#   (ollama's API error as a user copied it by hand, the space after the colon lost: ollama#4226)
# RuntimeError: CUDA driver error: out of memory
#   (c10/cuda/driver_api.h C10_CUDA_DRIVER_CHECK, 1.8+: "CUDA driver error: " + cuGetErrorString's text; the
#   CUDACachingAllocator's expandable segments and symmetric memory call the driver API directly)
# RuntimeError: HIP error: invalid device function                                     (pytorch/pytorch#147626, ROCm 6.x)
# RuntimeError: HIP error: hipErrorNoDevice                                            (pytorch/pytorch#70036, ROCm 4.2)
#   (PyTorch's ROCm build: the same check hipified, hipGetErrorString's text, or in older releases the error's name;
#   HIP's codes and texts are CUDA's runtime ones, its names resolved by cuda_error_catalogue.resolve)
HIP_NAME = re.compile(r"(?P<name>hipError[A-Z]\w{1,60})\b")
TORCH_ERROR = re.compile(r"\b(?:CUDA [Ee]rror|CUDA ERROR|Error \[CUDA\]|CUDA driver error|HIP error):[ \t]*(?P<msg>\S[^\n]*)")

# Failed: Cuda error /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:307 'peer access is not supported between these two devices'
# CUDA failure 217 'peer access is not supported between these two devices'
# Cuda failure: 'out of memory'
QUOTED = re.compile(
    r"\b(?:CUDA|Cuda|cuda) (?:error|failure|Error|Failure)(?:\s*:)?"
    r"(?: (?P<file>[^\s':]+):(?P<fline>\d+))?(?: (?P<num>\d{1,4}))?(?::)? ['\"](?P<msg>[^'\"\n]+)['\"]?"
)

# WSL: CUDA error 2 at ggml-cuda.cu:359: out of memory      (ggml-org/llama.cpp#1230, its title)
#   (ggml-cuda.cu's CUDA_CHECK of 2023, fprintf(stderr, "CUDA error %d at %s:%d: %s\n", err_, __FILE__, __LINE__,
#   cudaGetErrorString(err_)), and the programs whose own CUDA_CHECK prints the same: the code, where, the text)
NUMBERED_AT = re.compile(r"\bCUDA error (?P<num>\d{1,4}) at (?P<file>[^\s:]{1,300}):(?P<fline>\d{1,7}): (?P<msg>\S[^\n]{0,199})")
# [torch_memory_saver.cpp] cudaError error: 1 (invalid argument) file=csrc/core.cpp func=pause line=133 [repeated 2x across cluster].
#   (THUDM/slime#1786: SGLang's and slime's colocated engines pause and resume their GPU memory through
#   torch_memory_saver; its csrc/utils.h checks, every release since 0.0.8: CUDA_ERROR_CHECK prints
#   "[torch_memory_saver.cpp] cudaError error: " << code << " (" << cudaGetErrorString << ") " << " file=" << __FILE__
#   << " func=" << __func__ << " line=" << __LINE__, CURESULT_CHECK the same with "CUresult error: " and
#   cuGetErrorString's text (a driver call's code), then exit(1); the two spaces before file= may be one as pasted)
MEMORY_SAVER = re.compile(r"\[torch_memory_saver\.cpp\] (?P<what>CUresult|cudaError) error: (?P<num>-?\d{1,4}) "
                          r"\((?P<msg>[^()\n]{1,120})\)[ \t]{1,4}file=(?P<file>[^\s]{1,300}) func=(?P<fn>\w{1,80}) line=(?P<fline>\d{1,7})")
MEMORY_SAVER_MARKER = "[torch_memory_saver.cpp] "

# RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510
# THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=50 error=100 : no CUDA-capable device is detected
THC = re.compile(r"(?:cuda runtime error \((?P<num>\d+)\)|THCudaCheck FAIL .*?error=(?P<num2>\d+)) : (?P<msg>[^\n]+)")

# UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:109.)
# cudaGetDeviceCount returned 100
# failed call to cuInit: UNKNOWN ERROR (303)
NUMBERED = re.compile(r"\bError (?P<num>\d{1,4}): (?P<msg>[^\n(]+)|\b(?:cudaGetDeviceCount|cuInit) returned (?P<num2>\d{1,4})\b"
                      r"|failed call to cuInit: UNKNOWN ERROR \((?P<num3>\d{1,4})\)")

# 2021-11-19 15:37:52.507957: E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: CUresult(-1)
#   (a TensorFlow log quoted in a cluster's user guide; TensorFlow 1.x's ToString(CUresult), stream_executor/cuda/cuda_driver.cc:
#   a switch over the codes it knows, "default: return port::StrCat("CUresult(", static_cast<int>(result), ")");". A code the
#   catalogue knows is read as that error; one it does not (-1 is none of CUDA's) is read as what it is, a driver call that
#   failed with an unknown code, which no rule explains: an unexplained error, never nothing (wild sweep F4))
CURESULT = re.compile(r"\bfailed call to cu\w+: CUresult\((?P<num>-?\d{1,4})\)")

# numba.cuda.cudadrv.driver.CudaAPIError: [-1] Call to cuInit results in UNKNOWN_CUDA_ERROR     (NVIDIA/cudf#432, numba 0.4x)
#   (numba cuda/cudadrv/driver.py _check_error: errname = ERROR_MAP.get(retcode, "UNKNOWN_CUDA_ERROR"); msg = "Call to %s
#   results in %s" % (fname, errname); CudaAPIError(retcode, msg) prints "[%s] %s" % (code, msg): the name is numba's for a
#   CUresult its map lacks, the number the driver's; a code numba names is read from its CUDA_ERROR_* name)
NUMBA_UNKNOWN = re.compile(r"\[(?P<num>-?\d{1,4})\] Call to (?P<call>cu[A-Z]\w{0,60}) results in UNKNOWN_CUDA_ERROR\b")

# Failed to allocate device vector A (error code CUDA driver version is insufficient for CUDA runtime version)!   (cubecos#312)
#   (the CUDA samples' "(error code %s)!" with cudaGetErrorString or cudaGetErrorName; a bare number,
#   "(error code 2)", is not read: too many programs print that)
# (the message bounded, 300 characters: cudaGetErrorString's are under 100; an unbounded lazy run scanned a long
# line to its end once per "(error code" in it, 0.7 s CPU on bench/redos.py's 120,000-character line; RE2-valid)
ERROR_CODE = re.compile(r"\(error code (?P<msg>[^\n]{1,300}?)\)(?:!|[ \t]*$|\s+\[)", re.M)

# Check failed: error == cudaSuccess (8 vs. 0)  invalid device function                                              (C3D#18, CUDA 6.5's numbering)
# F1206 16:55:19.914152  3830 parallel.cpp:85] Check failed: error == cudaSuccess (2 vs. 0)  out of memory               (CaffeOnSpark#204)
# Check failed: error == cudaSuccess (803 vs. 0)  system has unsupported display driver / cuda driver combination        (MobileNet-YOLO#266)
# Check failed: CUDA_SUCCESS == dynload::cuCtxSetCurrent(context) (0 vs. 216)                                           (tensorflow#526)
# Check failed: CUDA_SUCCESS == dynload::cuCtxSetCurrent(cuda_context->context()) (0 vs. 4)                              (multimodal_transfer#2)
#   (glog/absl CHECK_EQ: "a == b (va vs. vb)"; the side that is not the success constant holds the error)
CHECK_FAILED = re.compile(
    r"\bCheck failed: (?P<lhs>[^\n]{1,300}?) == (?P<rhs>[^\n]{1,300}?) \((?P<a>-?\d+) vs\. (?P<b>-?\d+)\)[\s:]*(?P<msg>[^\n]*)")
#: the success constant of each API, as CHECK_EQ spells it
SUCCESS = {"cudaSuccess": "runtime", "CUDA_SUCCESS": "driver"}

# /mxnet/dmlc-core/include/dmlc/./logging.h:235: src/storage/storage.cc:42: Check failed: e == cudaSuccess || e == cudaErrorCudartUnloading CUDA: CUDA driver version is insufficient for CUDA runtime version
#   (computer-animation-perception-group/sEMG-based-mscnn#2, MXNet in a container on driver 410.78. MXNet's CUDA_CALL,
#   src/common/cuda_utils.h: CHECK(e == cudaSuccess || e == cudaErrorCudartUnloading) << "CUDA: " << cudaGetErrorString(e);
#   the same macro without the unloading clause in other dmlc-based code, awslabs/raf src/common/cuda.h. A glog CHECK of a
#   boolean prints the expression, then what was streamed: the error is the text after "CUDA: ", never a name the
#   expression compares against)
CHECK_STREAMED = re.compile(r"\bCheck failed: (?P<expr>[^\n]{0,300}?\bcudaSuccess\b[^\n]{0,300}?) CUDA: (?P<msg>\S[^\n]{0,300})")

# cudaRuntimeGetVersion() failed with error #35      (NVIDIA/DIGITS#252 and #356: DIGITS 2.x-6.x, digits/device_query.py,
#   "print 'cudaRuntimeGetVersion() failed with error #%s' % rc", and the same for cudaGetDeviceCount() and
#   cudaGetDeviceProperties(): the runtime's cudaError_t as a number; 35 cudaErrorInsufficientDriver, the maintainer's reading
#   in #252. A driver API function (cu...) returns a CUresult)
CALL_FAILED = re.compile(r"\b(?P<call>cu(?:da)?[A-Z]\w{1,60})\(\) failed with error #(?P<num>\d{1,4})\b")

# A name compared in a printed expression is what the check allowed, not what happened:
# Check failed: e == cudaSuccess || e == cudaErrorCudartUnloading CUDA: ...    (MXNet's CUDA_CALL above)
_COMPARED = re.compile(r"[=!]=[ \t]*$")

# 2021-04-26 20:35:39.266956: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1575] Unable to enable peer access between device ordinals 0 and 9, status: Internal: failed to enable peer access from 0x555ad3237be0 to 0x555ad618dae0: CUDA_ERROR_TOO_MANY_PEERS: peer mapping resources exhausted
#   (YangZeyu95/unofficial-implement-of-openpose#76, TensorFlow 2.x on a 10-GPU host. TensorFlow's gpu_device.cc
#   EnablePeerAccess: for each pair the driver says can peer, `if (!status.ok()) LOG(WARNING) << "Unable to enable peer access
#   between device ordinals " << i << " and " << j << ", status: " << status;` and goes on to the next pair; that pair's copies
#   go through the host. CUDA lets a GPU map at most 8 peers, so a host of more than 9 GPUs always prints it. Only when the
#   driver offered pairs and none could be enabled does TensorFlow fail, with errors::Internal("... potential peer access pairs
#   were reported by the driver, but no peering could be enabled ..."), a line of its own. The notice is read as no error.)
TF_PEER_NOTICE = re.compile(r"\] Unable to enable peer access between device ordinals \d{1,4} and \d{1,4}, status: ")
TF_PEER_NOTICE_MARKER = "Unable to enable peer access between device ordinals"

# ggml_cuda_init: failed to initialize CUDA: system not yet initialized       (llama.cpp / ollama, ollama#12136)
INIT_FAILED = re.compile(r"\bfailed to initiali[sz]e CUDA: (?P<msg>[^\n]+)")

#   what():  Error (gpu_burn-drv.cpp:298): system not yet initialized                        (wilicc/gpu-burn#92, an H100 HGX node)
# Couldn't init a GPU test: Error in load module (gpu_burn-drv.cpp:341): file not found      (format filled)
#   (gpu-burn's _checkError: "Error (" or "Error in " + desc + " (", then file:line "): " and cuGetErrorString's
#   text, a driver-API string; its cuBLAS overload prints cublasGetStatusString's, which the catalogue does not hold)
CHECK_ERROR = re.compile(r"\bError (?:in [^\n()]{1,80} )?\((?P<file>[\w./-]+\.(?:cpp|cu|cc|c)):(?P<fline>\d+)\): (?P<msg>[^\n]+)")

# ... CUDA failure 100: no CUDA-capable device is detected ; GPU=32712 ; hostname=HOME-PC ; file=/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_execution_provider.cc ; line=245 ; expr=cudaSetDevice(info_.device_id);
#   (onnxruntime's CudaCall, "%s failure %d: %s ; GPU=%d ; ...": deepinsight/insightface#2524, rhasspy/piper#162)
ORT_FAILURE = re.compile(r"\bCUDA failure (?P<num>\d{1,4}): (?P<msg>[^;\n]+?)\s*(?:;|$)")

# {what}: CUDA function returned error code invalid device ordinal:      (STEllAR-GROUP/octotiger#290: Octo-Tiger under HPX on
#   Summit, a jsrun resource set that gave each rank fewer GPUs than the run asked for)
#   (HPX's CUDA checks: libs/core/async_cuda/src/cuda_exception.cpp check_cuda_error, std::string("cuda function returned
#   error code :") + cudaGetErrorString(err); HPX's cuBLAS/CUDA executors and the applications built on them print
#   `temp << "CUDA function returned error code " << cudaGetErrorString(err)`. HPX's exception text ends in ":" before
#   its next line, "HPX(unhandled_exception)". The text is cudaGetErrorString's: read through the catalogue, else not read)
#   (the text a bounded greedy run up to HPX's ":" or the line's end, its blanks stripped after: a lazy one with "[ \t]*"
#   after it scanned a run of blanks once per character it tried, 1.3 s on a 120,000-character line)
RETURNED_CODE = re.compile(r"\b(?:CUDA|cuda) function returned error code :?[ \t]*(?P<msg>[^\n:]{1,200})")

# RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): out of memory (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:118)   (NVIDIA/TensorRT-LLM#1556)
# Mixtral 8x22b [TensorRT-LLM][ERROR] CUDA runtime error in cudaSetDevice(device): invalid device ordinal (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/utils/sessionUtils.cpp:34)   (the same thread's title)
#   (TensorRT-LLM cpp/include/tensorrt_llm/common/cudaUtils.h check(): TllmException(file, line, fmtstr("[TensorRT-LLM][ERROR]
#   CUDA runtime error in %s: %s", func, _cudaGetErrorEnum(result))), func the checked expression (#val of check_cuda_error /
#   TLLM_CUDA_CHECK), the text cudaGetErrorString's, TllmException adding " (file:line)"; vLLM's and TensorRT's copies of
#   the helper print "[ERROR] CUDA runtime error in %s: %s %s:%d" and "CUDA runtime error in %s: %s". The expression may
#   hold "::" and brackets: the text is what follows its last ": ", before the optional location; read through the
#   catalogue (a status name, as its cuBLAS overload prints, is LIBRARY_STATUS's), else not read)
RUNTIME_ERROR_IN = re.compile(
    r"\bCUDA runtime error in (?P<call>[^\n]{1,300}): (?P<msg>[^\n:()]{1,150}?)"
    r"(?: \((?P<file>[^\s():]{1,300}):(?P<fline>\d{1,6})\)| (?P<file2>[^\s():]{1,300}):(?P<fline2>\d{1,6}))?[ \t]*$")

# W0709 06:47:47.739722 149065 metrics.cc:188] failed to get device count, GPU metrics will not be available: initialization error   (triton-inference-server/server#3098)
# W0709 06:47:47.761504 149065 pinned_memory_manager.cc:202] Unable to allocate pinned system memory, pinned memory pool will not be available: initialization error   (the same)
# E0709 06:47:47.761553 149065 server.cc:182] Failed to initialize CUDA memory manager: unable to get number of CUDA devices: initialization error   (the same)
#   (Triton Inference Server's core: pinned_memory_manager.cc LOG_WARNING << "Unable to allocate pinned system memory, pinned
#   memory pool will not be available: " << cudaGetErrorString(err); cuda_utils.cc GetSupportedGPUs Status(INTERNAL, "unable to
#   get number of CUDA devices: " + cudaGetErrorString(cuerr)), which server.cc wraps as "Failed to initialize CUDA memory
#   manager: "; older releases' model_config_utils.cc "unable to get number of CUDA devices for <model>: "; metrics.cc's
#   warning as #3098 printed it. cudaGetErrorString's text ends the line; texts of four words or fewer ('initialization
#   error', 'unknown error') are read only behind these prefixes, the longer ones by the catalogue's phrases anyway. A pinned
#   pool refused for want of host memory ('out of memory' from cudaHostAlloc) is no GPU allocation: not read as one)
TRITON_CUDA_STATUS = re.compile(
    r"\b(?P<what>unable to get number of CUDA devices(?: for [^\n:]{1,200})?|pinned memory pool will not be available"
    r"|failed to get device count, GPU metrics will not be available): (?P<msg>[^\n:]{1,150}?)[ \t]*$")
TRITON_STATUS_MARKERS = ("unable to get number of CUDA devices", "pinned memory pool will not be available",
                         "GPU metrics will not be available: ")

# A GPU-discovery probe's status number, printed bare (no cudaGetErrorString text beside it):
# WARNING: [Torch-TensorRT] - Unable to read CUDA capable devices. Return status: 999      (triton-inference-server/server#4050, Jetson NX)
#   (Torch-TensorRT core/runtime/DeviceList.cpp: status = cudaGetDeviceCount(&n); if (status != cudaSuccess)
#   LOG_WARNING("Unable to read CUDA capable devices. Return status: " << status): a cudaError_t, printed at import
#   in every process that loads torch_tensorrt, Triton's PyTorch backend among them)
# time=2025-08-30T09:03:23.843-05:00 level=WARN source=gpu.go:605 msg="unknown error initializing cuda driver library /usr/lib/x86_64-linux-gnu/libcuda.so.575.64.03: cuda driver library init failure: 999. see https://github.com/ollama/ollama/blob/main/docs/troubleshooting.md for more information"
#   (ollama 0.11.3's journal, quoted in a public notes file; ollama/ollama#12352 is titled "cuda driver library init failure: 205")
#   (ollama's GPU discovery, discover/gpu_info_nvcuda.c: ret = cuInit(0); LOG(verbose, "cuInit err: %d\n", ret);
#   snprintf(buf, buflen, "cuda driver library init failure: %d", ret): a CUresult; gpu_info_cudart.c:
#   ret = cudaSetDevice(0); LOG(verbose, "cudaSetDevice err: %d\n", ret); "cudart init failure: %d": a cudaError_t.
#   discover/gpu.go quotes the text in its INFO/WARN lines, "Unable to load cudart library <lib>: <text>", "unknown
#   error initializing cuda driver library <lib>: <text>. see ...", error="<text>" in older releases)
# A number the catalogue does not know is not read (facts/parsers/ollama_log.py still reads ollama's line as a discovery
# failure). CONSTRUCTED for the tests: "cuInit err: 999", "cudaSetDevice err: 999" (the verbose log's form above).
DISCOVERY_STATUS = re.compile(
    r"\b(?:(?P<drv>cuda driver library|nvcuda) init failure: (?P<num>\d{1,4})\b|(?P<rt>cudart) init failure: (?P<num2>\d{1,4})\b"
    r"|(?P<drv2>cuInit) err: (?P<num3>\d{1,4})\b|(?P<rt2>cudaSetDevice) err: (?P<num4>\d{1,4})\b"
    r"|(?P<rt3>Unable to read CUDA capable devices)\. Return status: (?P<num5>\d{1,4})\b)")
DISCOVERY_MARKERS = (" init failure: ", "cuInit err: ", "cudaSetDevice err: ", "Unable to read CUDA capable devices")

# A number and cudaGetErrorString's text printed side by side, "error" in lower case or before a bracket:
# OSError: (External) CUDA error(719), unspecified launch failure.      (PaddlePaddle/PaddleDetection#8492, its title)
# Cuda error(3), initialization error.                                  (PaddlePaddle/PaddleX#952, its title)
#   (Paddle's build_nvidia_error_msg, paddle/phi/core/enforce.h: sout << "CUDA error(" << e << "), " << cudaGetErrorString(e)
#   << ". "; older releases "Cuda error(%d), %s.")
# ... Every vLLM worker died at cudaGetDeviceCount() with error 802: system not yet initialized while nvidia-smi listed all 16 GPUs. ...
#   (cloudrift-ai/emmy#558: the PR author's sentence quoting the workers' error)
#   (the check macros many CUDA programs carry print the same pair: the SDK's cutil "%s(%i) : cudaSafeCall() Runtime API
#   error %d: %s.\n" and fprintf(stderr, "CUDA error %d: %s\n", e, cudaGetErrorString(e)))
# "Error N: text" is NUMBERED's. Texts of four words or fewer ('system not yet initialized', 'unspecified launch failure')
# are no catalogue phrase: here they are read only where the number and the text name the same entry of the catalogue
# (runtime, else driver), so an errno's "error 2: No such file or directory" or CUDA 9's other numbering is not read.
CODE_AND_TEXT = re.compile(r"\b[Ee]rror ?(?:\((?P<num>\d{1,4})\),|(?P<num2>\d{1,4}):) (?P<msg>[A-Za-z][^\n]{0,150})")

# warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2c0)          (cuda-gdb, NVIDIA/nccl#258)
CUDA_GDB = re.compile(r"Cuda API error detected: (?P<call>\w+) returned \((?P<hex>0x[0-9a-fA-F]+)\)")

# --- CUDA libraries' own status codes (not cudaError_t/CUresult: each library has its enum) ---
# RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`   (facebookresearch/SparseConvNet#208)
#   (PyTorch aten/src/ATen/cuda/Exceptions.h TORCH_CUDABLAS_CHECK: "CUDA error: ", _cublasGetErrorEnum(__err), " when calling `" #EXPR "`")
# RuntimeError: cusolver error: CUSOLVER_STATUS_EXECUTION_FAILED, when calling `cusolverDnDgetrf( handle, m, n, dA, ldda, ...)`   (pytorch/pytorch#70122)
#   (TORCH_CUSOLVER_CHECK: "cusolver error: ", cusolverGetErrorMessage(__err), ", when calling `" #EXPR "`"[, ". This error may appear if the input matrix contains NaN."])
# RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED       (AT_CUDNN_CHECK: "cuDNN error: ", cudnnGetErrorString(status); NVIDIA/apex#1426)
# RuntimeError: CUDNN_STATUS_INTERNAL_ERROR                       (PyTorch 0.3's torch.backends.cudnn CuDNNError; pytorch/pytorch#5962)
# RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR                 (aten/src/ATen/native/cuda/CuFFTUtils.h CUFFT_CHECK; pytorch/pytorch#119420)
# E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR
# Check failed: status == CUDNN_STATUS_SUCCESS (4 vs. 0)  CUDNN_STATUS_INTERNAL_ERROR   (Caffe's CUDNN_CHECK, hujie-frank/SENet#10)
# e!         Error: CUDNN_STATUS_EXECUTION_FAILED; Reason: rtc->loadModule()             (cuDNN 9's own error log)
#   The status name is the key, whatever wraps it; only names of the libraries' enums are read
#   (cublas_api.h cublasStatus_t, cudnn.h / cudnn_graph.h cudnnStatus_t (9.x adds a detail after the
#   category: CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED), cusolver_common.h, cusparse.h,
#   cufft.h cufftResult, curand.h curandStatus), never *_SUCCESS, and a line that tests a status
#   (`if (status != CUBLAS_STATUS_SUCCESS)`) prints no failure.
# RuntimeError: /home/user/pip-req-build-n0h8f0x1/transformer_engine/common/util/rtc.cpp:200 in function compile: NVRTC Error: NVRTC_ERROR_COMPILATION   (NVIDIA/TransformerEngine#1018)
#   (NVRTC, CUDA's run-time compiler, which TransformerEngine, PyTorch's jiterator, CuPy and others call to build kernels at run
#   time: nvrtcGetErrorString returns the nvrtcResult's name; TransformerEngine transformer_engine/common/util/logging.h
#   NVTE_CHECK_NVRTC: NVTE_ERROR("NVRTC Error: ", nvrtcGetErrorString(status)), NVTE_ERROR prefixing "<file>:<line> in function
#   <func>: "; CuPy's NVRTCError "NVRTC_ERROR_COMPILATION (6)". nvrtc.h nvrtcResult: 1-11 since CUDA 8 (OUT_OF_MEMORY ...
#   INTERNAL_ERROR), 12-17 in CUDA 12 (TIME_FILE_WRITE_FAILED, NO_PCH_CREATE_ATTEMPTED, PCH_CREATE_HEAP_EXHAUSTED, PCH_CREATE,
#   CANCELLED, TIME_TRACE_FILE_WRITE_FAILED), BUSY in CUDA 13)
LIBRARY_STATUS = re.compile(
    r"\b(?P<status>(?P<lib>CUBLAS|CUDNN|CUSOLVER|CUSPARSE|CURAND)_STATUS_(?P<cond>[A-Z][A-Z0-9_]*[A-Z0-9])"
    r"|CUFFT_(?P<fcond>[A-Z][A-Z_]*[A-Z])|NVRTC_ERROR_(?P<ncond>[A-Z][A-Z_]*[A-Z]))\b")
#: every failure status of each library's enum (its header), without the library's prefix
LIBRARY_CONDITIONS = {
    "CUBLAS": frozenset({"NOT_INITIALIZED", "ALLOC_FAILED", "INVALID_VALUE", "ARCH_MISMATCH", "MAPPING_ERROR",
                         "EXECUTION_FAILED", "INTERNAL_ERROR", "NOT_SUPPORTED", "LICENSE_ERROR"}),
    "CUSOLVER": frozenset({"NOT_INITIALIZED", "ALLOC_FAILED", "INVALID_VALUE", "ARCH_MISMATCH", "MAPPING_ERROR",
                           "EXECUTION_FAILED", "INTERNAL_ERROR", "MATRIX_TYPE_NOT_SUPPORTED", "NOT_SUPPORTED",
                           "ZERO_PIVOT", "INVALID_LICENSE", "INVALID_WORKSPACE", "IRS_INTERNAL_ERROR",
                           "IRS_NOT_SUPPORTED", "IRS_MATRIX_SINGULAR"}),
    "CUSPARSE": frozenset({"NOT_INITIALIZED", "ALLOC_FAILED", "INVALID_VALUE", "ARCH_MISMATCH", "MAPPING_ERROR",
                           "EXECUTION_FAILED", "INTERNAL_ERROR", "MATRIX_TYPE_NOT_SUPPORTED", "ZERO_PIVOT",
                           "NOT_SUPPORTED", "INSUFFICIENT_RESOURCES"}),
    "CURAND": frozenset({"VERSION_MISMATCH", "NOT_INITIALIZED", "ALLOCATION_FAILED", "TYPE_ERROR", "OUT_OF_RANGE",
                         "LENGTH_NOT_MULTIPLE", "DOUBLE_PRECISION_REQUIRED", "LAUNCH_FAILURE", "PREEXISTING_FAILURE",
                         "INITIALIZATION_FAILED", "ARCH_MISMATCH", "INTERNAL_ERROR"}),
    "NVRTC": frozenset({"OUT_OF_MEMORY", "PROGRAM_CREATION_FAILURE", "INVALID_INPUT", "INVALID_PROGRAM", "INVALID_OPTION",
                        "COMPILATION", "BUILTIN_OPERATION_FAILURE", "NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
                        "NO_LOWERED_NAMES_BEFORE_COMPILATION", "NAME_EXPRESSION_NOT_VALID", "INTERNAL_ERROR",
                        "TIME_FILE_WRITE_FAILED", "NO_PCH_CREATE_ATTEMPTED", "PCH_CREATE_HEAP_EXHAUSTED", "PCH_CREATE",
                        "CANCELLED", "TIME_TRACE_FILE_WRITE_FAILED", "BUSY"}),
    "CUFFT": frozenset({"INVALID_PLAN", "ALLOC_FAILED", "INVALID_TYPE", "INVALID_VALUE", "INTERNAL_ERROR", "EXEC_FAILED",
                        "SETUP_FAILED", "INVALID_SIZE", "UNALIGNED_DATA", "INCOMPLETE_PARAMETER_LIST", "INVALID_DEVICE",
                        "PARSE_ERROR", "NO_WORKSPACE", "NOT_IMPLEMENTED", "LICENSE_ERROR", "NOT_SUPPORTED"}),
}
#: cuDNN's categories (7.x/8.x statuses; 9.x prints a category and a detail: EXECUTION_FAILED_CUDA_DRIVER)
CUDNN_CATEGORIES = ("NOT_INITIALIZED", "ALLOC_FAILED", "BAD_PARAM", "INTERNAL_ERROR", "INVALID_VALUE", "ARCH_MISMATCH",
                    "MAPPING_ERROR", "EXECUTION_FAILED", "NOT_SUPPORTED", "LICENSE_ERROR", "RUNTIME_PREREQUISITE_MISSING",
                    "RUNTIME_IN_PROGRESS", "RUNTIME_FP_OVERFLOW", "VERSION_MISMATCH", "SUBLIBRARY_VERSION_MISMATCH",
                    "SERIALIZATION_VERSION_MISMATCH", "DEPRECATED", "SUBLIBRARY_LOADING_FAILED")
# when calling `cublasCreate(handle)`     (the call PyTorch's checks quote; a paste may cut it before the closing backtick)
LIBRARY_CALL = re.compile(r"when calling `(?P<call>[^`\n]{1,400})`?")

# tensorflow.python.framework.errors_impl.UnknownError: Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed above.
#   (TensorFlow core/kernels/conv_ops*.cc: errors::Unknown when cuDNN gave no algorithm; the cuDNN handle's own
#   failure, "Could not create cudnn handle: CUDNN_STATUS_...", comes before it when the log has it)
TF_CUDNN_INIT = re.compile(r"Failed to get convolution algorithm\. This is probably because cuDNN failed to initiali[sz]e")

# jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed. Look at the errors above for more details.   (jax-ml/jax#16082)
#   (XLA's GPU compiler and stream executor: the executor has no DNN support, i.e. cuDNN did not load or initialise;
#   TensorFlow prints the same through XLA: "FailedPreconditionError: DNN library initialization failed.")
XLA_DNN_INIT = re.compile(r"\bDNN library initiali[sz]ation failed\b")

# 2021-10-13 17:19:29.385716: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0.  CuDNN library needs to have matching major version and equal or higher minor version. ...   (google-research/deeplab2#66)
# E tensorflow/stream_executor/cuda/cuda_dnn.cc:378] Loaded runtime CuDNN library: 7201 (compatibility version 7200) but source was compiled with 7004 (compatibility version 7000).  ...   (endernewton/tf-faster-rcnn#436, TF 1.x)
#   (TensorFlow's and XLA's stream_executor/cuda/cuda_dnn.cc: the cuDNN found at run time is older than the build's)
CUDNN_VERSION_MISMATCH = re.compile(
    r"\bLoaded runtime CuDNN library: (?P<runtime>[\d.]{1,20})(?: \(compatibility version \d{1,10}\))?"
    r" but source was compiled with:? (?P<compiled>[\d.]*\d)")

# JAX's own checks of the CUDA libraries against its build (jax_plugins/xla_cuda12 _version_check, jax._src.xla_bridge):
#   (jax/_src/xla_bridge.py _check_cuda_versions, jax-ml/jax 9404518201: f"Found {name} version {version}, but JAX was built
#   against version {build_version}, which is newer. The copy of {name} that is installed must be at least as new ...",
#   logged as f"CUDA backend failed to initialize: {err} (Set ...")
# CUDA backend failed to initialize: Found cuSOLVER version 11405, but JAX was built against version 11502, which is newer. ...
# Outdated cuDNN installation found.   (jax-ml/jax jax_plugins/cuda/__init__.py _make_msg: f"Outdated {name} installation found.\n"
#   for _version_check("cuDNN", ...), under "Unable to use CUDA because of the following issues with CUDA components:")
JAX_LIBS = r"CUDA|cuDNN|cuBLAS|cuFFT|cuSOLVER|cuSPARSE|cuPTI|CUPTI|NCCL|NVRTC|nvJitLink|PTXAS|NVCC"
JAX_VERSION_CHECK = re.compile(
    r"\bFound (?P<lib>" + JAX_LIBS + r") version \d{1,8}, but JAX was built against version \d{1,8}, which is newer"
    r"|\bOutdated (?P<lib2>" + JAX_LIBS + r") installation found\b")
# RuntimeError: Unable to initialize backend 'cuda': INVALID_ARGUMENT: Mismatched PJRT plugin PJRT API version (0.54) and framework PJRT API version 0.51).   (jax-ml/jax#22416)
#   (xla/pjrt/c/pjrt_c_api_helpers.cc: absl::InvalidArgumentError(StrCat("Mismatched PJRT plugin PJRT API version (", major, ".",
#   minor, ") and framework PJRT API version ", PJRT_API_MAJOR, ".", PJRT_API_MINOR, ")."): jax-cuda-plugin and jaxlib from different releases)
PJRT_MISMATCH = re.compile(r"\bMismatched PJRT plugin PJRT API version \(\d{1,4}\.\d{1,4}\) and framework PJRT API version")

# RuntimeError: Unable to find a valid cuDNN algorithm to run convolution   (NVlabs/BundleSDF#12; Conv_v7.cpp AlgoIterator::try_all:
#   every algorithm's workspace ran out of memory or was refused by cuDNN, the OutOfMemoryError/CuDNNError caught per algorithm)
# RuntimeError: no valid convolution algorithms available in CuDNN    (Conv_v7.cpp getValidAlgorithms: cuDNN offered none)
# RuntimeError: GET was unable to find an engine to execute this computation   (Conv_v8.cpp, cuDNN's frontend: no engine plan ran)
CUDNN_NO_ALGORITHM = re.compile(
    r"\b(?:Unable to find a valid cuDNN algorithm to run convolution|no valid convolution algorithms available in CuDNN"
    r"|(?:FIND|GET) was unable to find an engine to execute this computation)")

# `KSamplerAdvanced - cuDNN Frontend error: [cudnn_frontend] Error: No valid execution plans built.`   (YanWenKun/ComfyUI-Docker#140)
# RuntimeError: cuDNN Frontend error: [cudnn_frontend] Error: No execution plans support the graph.
# .../fused_attn_f16_arbitrary_seqlen.cu:227 in function operator(): cuDNN Error: [cudnn_frontend] Error: No execution plans built successfully.. For more information, ...
# cuDNN Frontend error: No valid engine configs for Matmul_MUL_Reduction_SUB_EXP_Reduction_LOG_ADD_DIV_Matmul_
#   (cuDNN's frontend found no engine for the graph (attention, a fused matmul) on this GPU with this cuDNN:
#   NVIDIA/cudnn-frontend include/cudnn_frontend/plans.h, 1.5+: {GRAPH_EXECUTION_PLAN_CREATION_FAILED, "[cudnn_frontend] Error:
#   No valid execution plans built."} and "[cudnn_frontend] Error: No execution plans support the graph." + err_msg; before 1.5
#   (pre-release-4, d337a3c): "[cudnn_frontend] Error: No execution plans built successfully."; every version:
#   {HEURISTIC_QUERY_FAILED, "No valid engine configs for " + operation_graph_tag}. PyTorch wraps them in
#   aten/src/ATen/cuda/Exceptions.h AT_CUDNN_FRONTEND_CHECK: "cuDNN Frontend error: ", error_object.get_message();
#   TransformerEngine in transformer_engine/common/util/logging.h NVTE_CHECK_CUDNN_FE: "cuDNN Error: ", error.err_msg, ". For
#   more information, ...". The frontend's per-plan notes ("Deselecting execution plan", "Skipping plan since shared memory
#   violation") are not failures and are not read)
CUDNN_FRONTEND = re.compile(
    r"\[cudnn_frontend\] Error: No (?:valid execution plans built|execution plans support the graph"
    r"|execution plans built successfully)|\bNo valid engine configs for [A-Za-z_]")

# This gives "Got cutlass error: Error Internal at: 146" on SM120 device.   (mit-han-lab/fouroversix#4)
#   (CUTLASS examples/common/helper.h CUTLASS_CHECK, copied by the projects built on CUTLASS: std::cerr << "Got cutlass error: "
#   << cutlassGetStatusString(error) << " at: " << __LINE__; also " at line ", "[<file>] Got cutlass error: ", and PyTorch's
#   aten/src/ATen/native/cuda/MixedDtypesLinear.cu CUTLASS_STATUS_CHECK: "Got CUTLASS error: ", cutlassGetStatusString(status).
#   include/cutlass/cutlass.h cutlassGetStatusString: "Error Misaligned Operand", "Error Invalid Data Type", "Error Invalid
#   Layout", "Error Invalid Problem", "Error Not Supported", "Error Workspace Null", "Error Internal", "Error Insufficient Driver",
#   "Error Architecture Mismatch" (ports: "Error Arch Mismatch"), "Error Memory Allocation failed"; "Invalid status" says nothing)
CUTLASS_STATUS = re.compile(
    r"\bGot (?:cutlass|CUTLASS) error: Error (?P<status>Misaligned Operand|Invalid Data Type|Invalid Layout|Invalid Problem"
    r"|Not Supported|Workspace Null|Internal|Insufficient Driver|Architecture Mismatch|Arch Mismatch|Memory Allocation)\b"
    r"(?: failed)?(?: at(?::| line) \d{1,7})?")
#: the literals that put a cuDNN frontend or CUTLASS status line in front of CUDNN_FRONTEND / CUTLASS_STATUS (parse's and
#: detect's gates alike)
# RuntimeError: cutlassF: no kernel found to launch!      (open-compass/VLMEvalKit#330, through torch's scaled_dot_product_attention)
#   (the memory-efficient attention of xformers (csrc/attention/cuda/fmha), of PyTorch (aten/src/ATen/native/transformers/cuda/
#   attention.cu, _efficient_attention_forward/backward) and onnxruntime's copy: after dispatch_cutlassF<scalar_t>(launchKernel,
#   computeCapability), TORCH_CHECK(kernel_launched, "cutlassF: no kernel found to launch!"), "cutlassB: ..." for the backward:
#   no kernel of the table for this dtype on this compute capability (bf16 kernels start at Sm80: a bf16 model on a Turing or
#   Volta GPU), or none whose alignment and head-dim checks the inputs pass; read as form mem_eff_attention_no_kernel)
MEM_EFF_NO_KERNEL = re.compile(r"\bcutlass(?P<pass>[FB]): no kernel found to launch!")
LIBRARY_MARKERS = ("[cudnn_frontend] Error: No ", "No valid engine configs for ", "ot cutlass error: Error ", "ot CUTLASS error: Error ",
                   ": no kernel found to launch!")
#: each cutlass::Status as the conditions the libraries' rules read (cutlass.h's comments: misaligned operands, a data type, a
#: layout or a problem size the operator does not support and a null workspace are the caller's; kErrorArchMismatch "CUTLASS runs
#: on a device that it was not compiled for"; kErrorMemoryAllocation "Kernel launch failed due to insufficient device memory");
#: kErrorInsufficientDriver "CUTLASS runs with a driver that is too old" is CUDA's cudaErrorInsufficientDriver
CUTLASS_CONDITIONS = {"Misaligned Operand": "INVALID_VALUE", "Invalid Data Type": "INVALID_VALUE", "Invalid Layout": "INVALID_VALUE",
                      "Invalid Problem": "INVALID_VALUE", "Workspace Null": "INVALID_VALUE", "Not Supported": "NOT_SUPPORTED",
                      "Internal": "INTERNAL_ERROR", "Architecture Mismatch": "ARCH_MISMATCH", "Arch Mismatch": "ARCH_MISMATCH",
                      "Memory Allocation": "ALLOC_FAILED"}

# > ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla V100-SXM2-32GB GPU has compute capability 7.0. You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: --dtype=half.   (hiyouga/LlamaFactory#4960, vLLM 0.4.3 under LLaMA-Factory)
# RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16.
#   (vLLM's _check_if_gpu_supports_dtype, vllm/worker/worker.py 0.1-0.6, then vllm/platforms: raise ValueError("Bfloat16 is only
#   supported on GPUs with compute capability of at least 8.0. Your {gpu_name} GPU has compute capability {major}.{minor}."),
#   from 0.2.2 with " You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: --dtype=half.",
#   later "Your {gpu_name} GPU {has compute capability X.Y | does not have a compute capability}"; people paste its second
#   sentence on a line of its own. PyTorch's torch/amp/autocast_mode.py autocast.__init__ (1.10 on): RuntimeError("Current CUDA
#   Device does not support bfloat16. Please switch dtype to float16.") where torch.cuda.is_bf16_supported() is False. Both: a
#   bf16 model or autocast on a GPU below Ampere (compute capability under 8.0: V100, T4, RTX 20xx); read as form
#   bf16_unsupported. transformers' "Your setup doesn't support bf16/gpu" is not read: a CPU-only torch raises it too)
BF16_UNSUPPORTED = re.compile(
    r"\bBfloat16 is only supported on GPUs with compute capability of at least 8\.0\b"
    r"(?:\.?\s{1,8}Your (?P<gpu>[^\n]{1,80}?) GPU (?:has compute capability (?P<cc>\d{1,2}\.\d{1,2})|does not have a compute capability))?"
    r"|\bCurrent CUDA Device does not support bfloat16\b")
BF16_MARKERS = ("Bfloat16 is only supported on GPUs", "Current CUDA Device does not support bfloat16")

# RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1   (MIC-DKFZ/nnUNet#2188)
# [2025-02-10 09:12:33,101] torch._dynamo.convert_frame: [WARNING] RuntimeError: Found Tesla P40 which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability    (CONSTRUCTED: the form torch._dynamo's suppress_errors logs, cut before the number)
#   (PyTorch's inductor, not Triton, checks the GPU before it compiles for it: torch/_inductor/scheduler.py create_backend
#   raises RuntimeError(f"Found {device_props.name} which is too old to be supported by the triton GPU compiler, which is
#   used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability
#   {major}.{minor}") where the major is under 7 (2.0 on; 2.6+ raise the same text as torch._inductor.exc.GPUTooOldForTriton,
#   under BackendCompilerFailed / InductorError, or as a torch._dynamo [WARNING] where suppress_errors falls back to eager).
#   torch.compile, or a library that compiles its kernels with Triton (unsloth, vLLM, sglang), on a pre-Volta GPU (Pascal
#   and older: P100, P40, GTX 10xx); no fault of the GPU or the driver. The message's second sentence alone is read too.)
TRITON_GPU_TOO_OLD = re.compile(
    r"\bFound (?P<gpu>[^\n]{1,120}?) which is too old to be supported by the triton GPU compiler\b"
    r"(?:[^\n]{0,200}?\bbut your device is of CUDA capability (?P<cc>\d{1,2}\.\d{1,2}))?"
    r"|\bTriton only supports devices of CUDA Capability >= \d{1,2}\.\d{1,2}, but your device is of CUDA capability (?P<cc2>\d{1,2}\.\d{1,2})")
TRITON_GPU_MARKERS = ("too old to be supported by the triton GPU compiler", "Triton only supports devices of CUDA Capability")

# triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 66560, Hardware limit: 65536. Reducing block sizes or `num_stages` may help.   (vllm-project/vllm#12498)
# triton.code_gen.OutOfResources: out of resource: shared memoryRequired: 110592Hardware limit: 101376     (Triton 1.x, the separators missing)
#   (triton/runtime/errors.py OutOfResources: f"out of resource: {name}, Required: {required}, Hardware limit: {limit}";
#   raised before the launch, for the limit the driver would refuse as CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES /
#   "too many resources requested for launch": the kernel's configuration does not fit this GPU)
TRITON_OUT_OF_RESOURCES = re.compile(
    r"\bout of resource: (?P<res>[a-z ]{1,40}?),? ?Required: (?P<req>\d{1,12}),? ?Hardware limit(?:ation)?: (?P<lim>\d{1,12})")

# RuntimeError: Can't enable access between nodes 0 and 1          (NVIDIA/TensorRT-LLM#1374's title, TensorRT-LLM 0.8 on two A10s under a PHB)
#   (TensorRT-LLM's tensorrt_llm/_ipc_utils.py set_peer_access: after cudart.cudaDeviceCanAccessPeer(src_node, dest_node),
#   `if result == 0: raise RuntimeError(f"Can't enable access between nodes {src_node} and {dest_node}")`: CUDA says the two
#   GPUs have no peer access and the custom all-reduce's IPC buffers need it; read as cudaErrorPeerAccessUnsupported)
TRTLLM_PEER = re.compile(r"\bCan't enable access between nodes \d{1,4} and \d{1,4}\b")

# ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[128,3,8,128,8,128] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc   (tensorflow/tensorflow#136)
# W tensorflow/core/framework/op_kernel.cc:1202] OP_REQUIRES failed at tile_ops.cc:123 : Resource exhausted: OOM when allocating tensor with shape[16,1,892800,8,4,2,2] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
#   (TensorFlow's GPU BFC allocator: op_kernel/allocation errors::ResourceExhausted("OOM when allocating tensor with shape", ...,
#   " on ", device, " by allocator ", name); read only with the GPU's device or allocator named, a host OOM being "cpu")
TF_OOM = re.compile(r"\bOOM when allocating tensor\b[^\n]{0,400}?(?:/device:GPU:(?P<dev>\d+)|\bby allocator GPU_(?P<dev2>\d+)_bfc)")

# cuBLAS error 15 at tabby/crates/llama-cpp-bindings/llama.cpp/ggml-cuda.cu:7398: the requested functionality is not supported   (TabbyML/tabby#1154)
# cuBLAS error 15 at ggml-cuda.cu:7956: the requested functionality is not supported   (ollama/ollama#1874, a CUDA build on compute capability 5.2)
#   (ggml-cuda.cu's CUBLAS_CHECK for CUDA >= 12, late 2023 to early 2024, and programs that copied it: fprintf(stderr,
#   "\ncuBLAS error %d at %s:%d: %s\n", err_, __FILE__, __LINE__, cublasGetStatusString(err_)); the number is the
#   cublasStatus_t of cublas_api.h (CUBLAS_STATUS_NOT_SUPPORTED = 15), read by it; a number the header has not stays unread.
#   Its CUDA 11 branch prints the status's name, "CUDA error: CUBLAS_STATUS_NOT_SUPPORTED", which LIBRARY_STATUS reads)
CUBLAS_NUMBERED = re.compile(r"\bcuBLAS error (?P<num>\d{1,2}) at (?P<file>(?:[A-Za-z]:)?[^\s:]{1,300}):(?P<fline>\d{1,6}): \S")
#: cublas_api.h cublasStatus_t: every failure status by its number
CUBLAS_STATUS_BY_NUMBER = {1: "NOT_INITIALIZED", 3: "ALLOC_FAILED", 7: "INVALID_VALUE", 8: "ARCH_MISMATCH", 11: "MAPPING_ERROR",
                           13: "EXECUTION_FAILED", 14: "INTERNAL_ERROR", 15: "NOT_SUPPORTED", 16: "LICENSE_ERROR"}
CUBLAS_NUMBERED_MARKER = "cuBLAS error "

# RuntimeError: /tmp/pip-req-build-5_wk8tph/transformer_engine/common/include/transformer_engine/logging.h:38 in function check_cublas_: CUBLAS Error: the requested functionality is not supported   (NVIDIA/TransformerEngine#376)
# [Bug] RuntimeError: /TransformerEngine/transformer_engine/common/gemm/cublaslt_gemm.cu:750 in function cublas_gemm: cuBLAS Error: the function failed to launch on the GPU   (THUDM/slime#1622, its title)
#   (TransformerEngine's NVTE_CHECK_CUBLAS, transformer_engine/common/util/logging.h: NVTE_ERROR("cuBLAS Error: ",
#   cublasGetStatusString(status)), behind NVTE_ERROR's "<file>:<line> in function <func>: "; releases before 1.0 spelled it
#   "CUBLAS Error: " in include/transformer_engine/logging.h check_cublas_. cublasGetStatusString's text, not the status's
#   name, is what is printed (cuBLAS is closed source): read through the table below. Texts seen in real lines: NOT_SUPPORTED
#   (the two above, and ggml's CUBLAS_CHECK "cuBLAS error 15 at ...: the requested functionality is not supported"),
#   EXECUTION_FAILED (above), INTERNAL_ERROR "an internal operation failed" and INVALID_VALUE "an unsupported value or
#   parameter was passed to the function" (TransformerEngine lines quoted in notes of the code index); the other four as a
#   test in the code index asserts a copy of cublasGetStatusString's texts. A text the table lacks stays unread (an
#   unexplained error, never healthy))
CUBLAS_STATUS_BY_TEXT = {"the library was not initialized": "NOT_INITIALIZED", "the resource allocation failed": "ALLOC_FAILED",
                         "an unsupported value or parameter was passed to the function": "INVALID_VALUE",
                         "the function requires an architectural feature absent from the device": "ARCH_MISMATCH",
                         "an access to GPU memory space failed": "MAPPING_ERROR",
                         "the function failed to launch on the GPU": "EXECUTION_FAILED",
                         "an internal operation failed": "INTERNAL_ERROR",
                         "the requested functionality is not supported": "NOT_SUPPORTED"}
CUBLAS_STATUS_TEXT = re.compile(r"\b(?:cuBLAS|CUBLAS) Error: (?P<text>" + "|".join(map(re.escape, CUBLAS_STATUS_BY_TEXT)) + r")")
# RuntimeError: /tmp/pip-req-build-5_wk8tph/transformer_engine/common/include/transformer_engine/logging.h:38 in function check_cublas_: CUBLAS Error: the requested functionality is not suppo
#   (CONSTRUCTED: TransformerEngine#376's line cut where a narrow paste or a title ends it; a text cut at the line's end is
#   read where it begins exactly one of the texts above, eight letters or more of it)
CUBLAS_TEXT_CUT = re.compile(r"\b(?:cuBLAS|CUBLAS) Error: (?P<text>(?:the|an) [a-z][a-z ]{4,80}?)[ \t]*$")
#: a cut text's shortest length
_CUT_TEXT_MIN = 8
CUBLAS_TEXT_MARKERS = ("cuBLAS Error: ", "CUBLAS Error: ")

# [QUESTION] fused_attn_f16_arbitrary_seqlen.cu:373 in function operator(): cuDNN Error   (NVIDIA/Megatron-LM#1882, its title)
#   (TransformerEngine's checks (transformer_engine/common/util/logging.h NVTE_CHECK_CUDNN / NVTE_CHECK_CUDNN_FE /
#   NVTE_CHECK_CUBLAS: NVTE_ERROR("cuDNN Error: ", ...) after NVTE_ERROR's "<file>:<line> in function <func>: ") cut at the
#   library's name, before the status: a failure of that library inside TransformerEngine whose status is not shown)
TE_ERROR_CUT = re.compile(r"(?P<file>[\w.-]{1,200}\.(?:cu|cpp|cc|h)):(?P<fline>\d{1,6}) in function [^\n:]{1,120}(?:::[^\n:]{1,120}){0,4}: "
                          r"(?P<lib>cuDNN|cuBLAS|CUBLAS) Error:?[ \t]*$")
TE_ERROR_CUT_MARKERS = (" cuDNN Error", " cuBLAS Error", " CUBLAS Error")

# d:\a\koboldcpp\koboldcpp\ggml\src\ggml-cuda\mmv.cu:51: ERROR: CUDA kernel mul_mat_vec has no device code compatible with CUDA arch 520. ggml-cuda.cu was compiled for: __CUDA_ARCH_LIST__   (LostRuins/koboldcpp#1362)
# > /home/runner/work/llama-cpp-python/llama-cpp-python/vendor/llama.cpp/ggml/src/ggml-cuda/template-instances/../mmq.cuh:2422: ERROR: CUDA kernel mul_mat_q has no device code compatible with   (abetlen/llama-cpp-python#1624, quoted and cut where the reporter's sentence was)
#   (ggml/src/ggml-cuda/common.cuh no_device_code, reached through NO_DEVICE_CODE where a kernel's body was compiled
#   out for the architecture that runs: printf("%s:%d: ERROR: CUDA kernel %s has no device code compatible with CUDA arch
#   %d. ggml-cuda.cu was compiled for: %s\n", file_name, line, function_name, __CUDA_ARCH__, __CUDA_ARCH_LIST__), then
#   __trap(): the arch printed is the build's code the GPU runs (a compute_52 PTX JIT-compiled for a newer GPU prints 520),
#   the host's next call fails with 'unspecified launch failure'. Forks print "compiled for: %s" alone)
# Since updating from 1.54 to 1.55 I've been getting `ERROR: ggml-cuda was compiled without support for the current GPU architecture.` errors, ...   (LostRuins/koboldcpp#610)
#   (ggml-cuda.cu before common.cuh, late 2023 to early 2024: bad_arch() printf("ERROR: ggml-cuda was compiled without
#   support for the current GPU architecture.\n"); __trap();)
# The build the program runs has no kernel code for this GPU: read as a cuda_error of form ggml_no_device_code (no
# catalogue entry: the status the host then gets is 719's), which ggml_kernel_lacks_gpu_arch judges.
GGML_NO_DEVICE_CODE = re.compile(
    r"\bERROR: CUDA kernel (?P<kernel>\w{1,120}) has no device code compatible with(?: CUDA arch (?P<arch>\d{2,4})\b)?"
    r"|\bERROR: ggml-cuda was compiled without support for the current GPU architecture\b")
GGML_ARCH_MARKERS = ("has no device code compatible with", "ggml-cuda was compiled without support")
GGML_MARKERS = GGML_ARCH_MARKERS + (CUBLAS_NUMBERED_MARKER,)

# ../aten/src/ATen/native/cuda/Indexing.cu:1308: indexSelectLargeIndex: block: [106,0,0], thread: [15,0,0] Assertion `srcIndex < srcSelectDimSize` failed.   (huggingface/trl#2996)
# /pytorch/aten/src/THC/THCTensorIndex.cu:362: void indexSelectLargeIndex(...) [with T = float, ...]: block: [163,0,0], thread: [28,0,0] Assertion `srcIndex < srcSelectDimSize` failed.
#   (CUDA's device-side assert, crt/assert.h __assertfail: "%s:%d: %s: block: [%d,%d,%d], thread: [%d,%d,%d] Assertion `%s` failed.";
#   the kernel's context is lost and the host then sees cudaErrorAssert, "device-side assert triggered")
# c10d's NaN check on a collective's input asserts this way on purpose (form nan_check, not a kernel fault):
# /home/tristanr/pytorch/torch/csrc/distributed/c10d/NanCheck.cu:217: checkForNaN: block: [0,0,0], thread: [0,0,0] Assertion `!isnan(tailPtr[threadIdx.x])` failed.   (pytorch/pytorch#174736)
DEVICE_ASSERT = re.compile(r"\bblock: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion `(?P<expr>[^`\n]{0,300})` failed")

# CUDA_EXCEPTION_6, Warp Misaligned Address.          (Dao-AILab/flash-attention#470, its title and the error it pasted)
# Thread 1 "python" received signal CUDA_EXCEPTION_14, Warp Illegal Address.     (CONSTRUCTED from the two formats below)
# CUDA Exception: Warp Illegal Address                                          (CONSTRUCTED, likewise)
#   (cuda-gdb stopping on a kernel's exception: NVIDIA/cuda-gdb include/gdb/signals.def gives each exception a signal,
#   SET (GDB_SIGNAL_CUDA_WARP_MISALIGNED_ADDRESS, 158, "CUDA_EXCEPTION_6", "Warp Misaligned Address"), which gdb reports as
#   "received signal <name>, <string>."; gdb/cuda/cuda-exceptions.c print_exception_name prints "CUDA Exception: <string>".
#   The kernel faulted: the host's next call fails with the catalogue's error of the same fault, read as that error (form
#   cuda_gdb_exception). The strings of CUDA_EXCEPTION_0 to 19 (cuda-gdb at afd75cab; 17-19 newer than 16f99a41))
CUDA_GDB_EXCEPTION = re.compile(
    r"\bCUDA_EXCEPTION_\d{1,2}, (?P<name>[A-Z][A-Za-z -]{3,60}?)\.?[ \t]*$|\bCUDA Exception: (?P<name2>[A-Z][A-Za-z -]{3,60}?)[ \t]*$")
#: each exception's string -> the catalogue's runtime error of the same fault (cuda_runtime_api's texts: 700 'an illegal memory
#: access was encountered', 714 hardware stack error, 715 illegal instruction, 716 misaligned address, 717 invalid address
#: space, 718 invalid program counter, 710 device-side assert, 719 'unspecified launch failure' for the rest)
CUDA_GDB_EXCEPTIONS = {
    "Device Unknown Exception": "cudaErrorLaunchFailure", "Lane Illegal Address": "cudaErrorIllegalAddress",
    "Lane User Stack Overflow": "cudaErrorHardwareStackError", "Device Hardware Stack Overflow": "cudaErrorHardwareStackError",
    "Warp Illegal Instruction": "cudaErrorIllegalInstruction", "Warp Out-of-range Address": "cudaErrorIllegalAddress",
    "Warp Misaligned Address": "cudaErrorMisalignedAddress", "Warp Invalid Address Space": "cudaErrorInvalidAddressSpace",
    "Warp Invalid PC": "cudaErrorInvalidPc", "Warp Hardware Stack Overflow": "cudaErrorHardwareStackError",
    "Device Illegal Address": "cudaErrorIllegalAddress", "Lane Misaligned Address": "cudaErrorMisalignedAddress",
    "Warp Assert": "cudaErrorAssert", "Lane Syscall Error": "cudaErrorLaunchFailure",
    "Warp Illegal Address": "cudaErrorIllegalAddress", "Invalid Managed Memory Access": "cudaErrorIllegalAddress",
    "Non-migratable System-scoped Atomic Access": "cudaErrorLaunchFailure",
    "Cluster target block not present": "cudaErrorLaunchFailure", "Cluster out of range address": "cudaErrorIllegalAddress",
    "Warp Stack Canary": "cudaErrorHardwareStackError",
}
CUDA_GDB_EXCEPTION_MARKERS = ("CUDA_EXCEPTION_", "CUDA Exception: ")

# Out-of-memory forms outside PyTorch's caching allocator, read as ``cuda_oom``:
# ggml_backend_cuda_buffer_type_alloc_buffer: allocating 10966.43 MiB on device 0: cudaMalloc failed: out of memory
#   (ggml/src/ggml-cuda/ggml-cuda.cu: "%s: allocating %.2f MiB on device %d: cudaMalloc failed: %s\n")
# Error: llama runner process has terminated: cudaMalloc failed: out of memory   (ollama/ollama#9782: ollama quotes the
#   runner's last stderr line)
GGML_CUDA_MALLOC = re.compile(
    r"(?:\ballocating (?P<mib>\d{1,9}(?:\.\d{1,2})?) MiB on device (?P<dev>\d{1,3}): )?cudaMalloc failed: out of memory")
# ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 838447104   (ollama/ollama#9782)
# alloc_tensor_range: failed to allocate CUDA0 buffer of size 5064192000
#   (ggml-alloc.c / ggml-backend.cpp: "%s: failed to allocate %s buffer of size %zu\n", the buffer type's name CUDA<n>;
#   llama.cpp's loader then throws "unable to allocate %s buffer": "error loading model: unable to allocate CUDA0 buffer")
GGML_BUFFER = re.compile(r"\b(?:failed to allocate CUDA(?P<dev>\d{1,3}) buffer of size (?P<bytes>\d{1,20})\b"
                         r"|unable to allocate CUDA(?P<dev2>\d{1,3}) buffer\b)")
# torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)
#   (c10/cuda/CUDAMallocAsyncAllocator.cpp, PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync, ComfyUI's default:
#   TORCH_CHECK_WITH(OutOfMemoryError, false, "Allocation on device ", device, " would exceed allowed memory. (out of memory)", ...))
TORCH_ASYNC_OOM = re.compile(r"\bAllocation on device (?P<dev>\d{1,3}) would exceed allowed memory")
# - **Exception Type:** torch.OutOfMemoryError   (ComfyUI's error report, its message cut to "Allocation on device ":
#   Comfy-Org/ComfyUI#4852); the exception's name alone or before ": " (an "except torch.cuda.OutOfMemoryError:" source line is not read)
TORCH_OOM_TYPE = re.compile(r"(?:^|[\s*`])torch\.(?:cuda\.)?OutOfMemoryError(?:: |[\s*`]*$)")
# TVMError: Check failed: (output_res.IsOk()) is false: Insufficient GPU memory error: The available single GPU memory is 20584.716 MB, which is less than the sum of model weight size (18643.766 MB) and temporary buffer size (2977.048 MB).
#   (mlc-ai/mlc-llm#2498, mlc_llm serve on 2 x 24 GB. MLC LLM's engine estimates its memory before it allocates anything,
#   cpp/serve/config.cc: "Insufficient GPU memory error: The available single GPU memory is " + BytesToMegabytesString(
#   gpu_size_bytes * gpu_memory_utilization) + " MB, which is less than the sum of model weight size (" + ... + " MB) and
#   temporary buffer size (" + ... + " MB)."; BytesToMegabytesString divides by 1024 twice. What it needs is the weights and
#   the buffers of one GPU's shard; the available figure is the GPU's size times its gpu_memory_utilization, no measure of free)
MLC_CAPACITY = re.compile(r"\bInsufficient GPU memory error: The available single GPU memory is \d{1,9}(?:\.\d{1,3})? MB, "
                          r"which is less than the sum of model weight size \((?P<weights>\d{1,9}(?:\.\d{1,3})?) MB\) "
                          r"and temporary buffer size \((?P<temp>\d{1,9}(?:\.\d{1,3})?) MB\)")
# TensorFlow's / XLA's stream_executor Diagnostician after a failed cuInit (cuda_diagnostics.cc LogDriverVersionInformation:
# LOG(ERROR) << "kernel version " << DriverVersionStatusToString(kernel_version) << " does not match DSO version "
# << DriverVersionStatusToString(dso_version) << " -- cannot find working devices in this configuration"; a side that is
# no version prints its status text instead, which is no mismatch of versions and is not read):
# 2020-06-26 10:14:51.996405: E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_diagnostics.cc:313] kernel version 440.36.0 does not match DSO version 440.33.1 -- cannot find working devices in this configuration   (jax-ml/jax#3568)
# 2025-01-27 13:52:31.859580: E external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:262] kernel version 550.120.0 does not match DSO version 560.35.5 -- cannot find working devices in this configuration   (a notebook's output in a public repository, code index file 17684568749)
DSO_MISMATCH = re.compile(r"\bkernel version (?P<kernel>\d{1,4}(?:\.\d{1,4}){1,2}) does not match DSO version (?P<dso>\d{1,4}(?:\.\d{1,4}){1,2})\b")
# the two INFO lines the ERROR line is built from (the same file, just before it):
# 2018-01-22 10:12:52.860790: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] libcuda reported version is: 384.111.0   (tensorflow/tensorflow#1158)
# 2018-01-22 10:12:52.860907: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:193] kernel reported version is: 384.90.0     (the same thread)
REPORTED_VERSION = re.compile(r"\b(?P<side>libcuda|kernel) reported version is: (?P<ver>\d{1,4}(?:\.\d{1,4}){1,2})\s*$")
DSO_MARKERS = ("does not match DSO version", " reported version is: ")

VERSION_MARKERS = ("but JAX was built against version", "installation found", "Mismatched PJRT plugin")
TRTLLM_PEER_MARKER = "Can't enable access between nodes"
OOM_MARKERS = ("cudaMalloc failed: out of memory", "failed to allocate CUDA", "unable to allocate CUDA",
               "would exceed allowed memory", "OutOfMemoryError", "Insufficient GPU memory error: ")

# RuntimeError: The NVIDIA driver on your system is too old (found version 11060). Please update your GPU driver ...
# RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx
# UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.
# RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.
PYTORCH_INIT = re.compile(
    r"(?P<msg>The NVIDIA driver on your system is too old(?: \(found version (?P<ver>\d+)\))?"
    r"|Found no NVIDIA driver on your system|CUDA unknown error - this may be due to an incorrectly set up environment"
    r"|CUDA driver initialization failed, you might not have a CUDA gpu)"
)

# .../torch/nn/modules/conv.py:456: UserWarning: Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at ../aten/src/ATen/native/cudnn/Conv_v8.cpp:919.)   (pytorch/pytorch#121834)
# UserWarning: Plan failed with a CuDNNError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED   (marieai/marie-ai#124)
#   (PyTorch's cuDNN v8 convolution tries the engine configs in turn and goes on to the next when one throws
#   (aten/src/ATen/native/cudnn/Conv_v8.cpp try_configs: `catch (cudnn_frontend::cudnnException &e) {} catch(CuDNNError &e) {}
#   catch (c10::OutOfMemoryError &e)`, silent in 2.0-2.2, warned in 2.3 at Conv_v8.cpp:919); the convolution fails only when
#   none runs, with "GET/FIND was unable to find an engine to execute this computation" (CUDNN_NO_ALGORITHM). A cuDNN maintainer
#   on pytorch/pytorch#121834: the warning alone does not affect the result. The warning is torch_warnings' (benign); the status
#   it quotes is no failure of the program's)
TORCH_PLAN_FALLBACK = re.compile(r"\bPlan failed with an? [A-Za-z:]{1,40}(?:Exception|Error): ")

# NCCL's own messages that quote a CUDA error: the NCCL facts own them (facts/parsers/nccl_*.py, torch_log)
# Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.
NCCL_OWNED = ("NCCL WARN", "NVLink SHARP (NVLS)", "NCCL INFO")


def _owned(line: str) -> bool:
    """NCCL's own lines (the NCCL facts read them) and libcufile's progress lines (cufile.log's INFO, DEBUG and TRACE: its
    probes, ``pci_p2pdma not supported errornum: 801 error:  CUDA_ERROR_NOT_SUPPORTED``, are no application error)."""
    return any(k in line for k in NCCL_OWNED) or cufile_log.progress_line(line)

# (RayWorkerWrapper pid=392789) ERROR 03-13 16:32:15 worker_base.py:574] torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "../aten/src/ATen/cuda/CUDAContext.cpp":49, please report a bug to PyTorch. device=1, num_gpus=
#   (OpenRLHF/OpenRLHF#866; ray-project/ray's train v2 shows the same at CUDAContext.cpp:52 with "device=1, num_gpus=1")
#   PyTorch's at::cuda::getDeviceProperties: AT_ASSERT(device >= 0 && device < num_gpus, "device=", device, ", num_gpus=",
#   num_gpus), num_gpus being the GPUs this process sees: an index past them, what CUDA itself answers with 101
#   'invalid device ordinal' (cudaErrorInvalidDevice): the launcher's GPU binding or the program's choice of index
TORCH_DEVICE_INDEX = re.compile(
    r"\bdevice >= 0 && device < num_gpus INTERNAL ASSERT FAILED\b(?:[^\n]{0,400}?\bdevice=(?P<dev>-?\d{1,4}), num_gpus=)?")
TORCH_DEVICE_INDEX_MARKER = "device < num_gpus INTERNAL ASSERT FAILED"

# `rocBLAS error: Could not initialize Tensile host: No devices found.`` AMD ROCm reports no devices found`
#   (likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU#6, a maintainer quoting it from ollama's ROCm runner on Windows)
#   rocBLAS's tensile_host.cpp when hipGetDeviceCount finds no GPU: HIP's 100 'no ROCm-capable device is detected',
#   CUDA's cudaErrorNoDevice
ROCBLAS_NO_DEVICE = re.compile(r"\brocBLAS error: Could not initiali[sz]e Tensile host: No devices found\b")
ROCBLAS_NO_DEVICE_MARKER = "Tensile host: No devices found"

# `Starting GPU coredump generation, set the CUDA_COREDUMP_SHOW_PROGRESS environment variable to 1 to enable more detailed output
#   (sgl-project/sglang#6590, 2025-05: before a decode scheduler's "Scheduler hit an exception", the reporter's backtick
#   first) the CUDA driver's own line when CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 and a kernel of the process raised a GPU
#   exception: it writes the dump, then the host's next call fails with the exception's error (cuda_gpu_coredump)
COREDUMP_MARKER = "Starting GPU coredump generation"
COREDUMP = re.compile(r"\bStarting GPU coredump generation\b(?:, set the CUDA_COREDUMP_SHOW_PROGRESS\b|[ \t.]*$)")

# Literals that put a line in front of the patterns above (str.find beats a regex alternation)
MARKERS = ("cudaError", "hipError", "CUDA_ERROR_", "CUDA error", "CUDA driver error", "HIP error: ", "CUDA Error", "CUDA ERROR", "Cuda error", "Error [CUDA]",
           "CUDA failure", "Cuda failure", "cuda runtime error", "THCudaCheck FAIL", "cudaGetDeviceCount", "cuInit",
           "NVIDIA driver on your system", "CUDA unknown error", "CUDA driver initialization failed",
           "Cuda API error detected", "failed to initialize CUDA", "failed to initialise CUDA", "(error code ",
           "cudaSuccess", "CUDA_SUCCESS", "CUresult(", oom_message.MARKER, oom_message.TAIL_MARKER, oom_message.XLA_MARKER,
           "_STATUS_", "CUFFT_", "NVRTC_ERROR_", "Failed to get convolution algorithm", "] Assertion `",
           "DNN library initiali", "Loaded runtime CuDNN", "cuDNN algorithm", "convolution algorithms available",
           "unable to find an engine", "out of resource: ", "OOM when allocating tensor", "Error (", "Error in ",
           TRTLLM_PEER_MARKER, " CUDA: ", "() failed with error #", "results in UNKNOWN_CUDA_ERROR", "function returned error code", "CUDA runtime error in ", TORCH_DEVICE_INDEX_MARKER, COREDUMP_MARKER,
           ROCBLAS_NO_DEVICE_MARKER, MEMORY_SAVER_MARKER) + LIBRARY_MARKERS + BF16_MARKERS + TRITON_GPU_MARKERS + CUDA_GDB_EXCEPTION_MARKERS + CUBLAS_TEXT_MARKERS + TE_ERROR_CUT_MARKERS + GGML_MARKERS + TRITON_STATUS_MARKERS + OOM_MARKERS + VERSION_MARKERS + DSO_MARKERS + DISCOVERY_MARKERS

# [rank3]:[E416 ...] ... / (WorkerDict pid=63294) [rank3]: ...  (the rank: torch_log_lines.global_rank)
PID = re.compile(r"\bpid[=: ]\s*(?P<pid>\d+)")
# CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
# HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
# For debugging consider passing AMD_SERIALIZE_KERNEL=3 / HIP_LAUNCH_BLOCKING=1.       (PyTorch's ROCm build: #147626, #70036)
# Compile with TORCH_USE_HIP_DSA to enable device-side assertions.
BOILERPLATE = re.compile(
    r"^\s*(?:(?:CUDA|HIP) kernel errors might be asynchronously reported"
    r"|For debugging consider passing (?:CUDA_LAUNCH_BLOCKING=1|HIP_LAUNCH_BLOCKING=1|AMD_SERIALIZE_KERNEL=3)"
    r"|Compile with `?TORCH_USE_(?:CUDA|HIP)_DSA`? to enable device-side assertions)"
)
BOILERPLATE_MARKERS = ("CUDA kernel errors might", "CUDA_LAUNCH_BLOCKING=1", "TORCH_USE_CUDA_DSA",
                       "HIP kernel errors might", "HIP_LAUNCH_BLOCKING=1", "AMD_SERIALIZE_KERNEL=3", "TORCH_USE_HIP_DSA")

DETECT = re.compile(
    r"cudaError[A-Z]\w*|hipError[A-Z]\w*|CUDA_ERROR_[A-Z_]+|CUDA [Ee]rror[: ]|HIP error: |CUDA driver error: |CUDA ERROR: |Cuda error |Error \[CUDA\]: |(?:CUDA|Cuda) failure"
    r"|cuda runtime error \(|THCudaCheck FAIL|Error \d+: |cudaGetDeviceCount returned|failed call to cuInit"
    r"|\[torch_memory_saver\.cpp\] (?:CUresult|cudaError) error: -?\d"
    r"|NVIDIA driver on your system is too old|Found no NVIDIA driver|CUDA unknown error - |CUDA driver initialization failed"
    r"|CUDA out of memory\.|Cuda API error detected: |failed to initiali[sz]e CUDA: "
    # PyTorch's out-of-memory message pasted from its size on (cuda_oom_message.TAIL)
    r"|\bTried to allocate [^\s;()]{1,40} (?:bytes|B|KiB|MiB|GiB|TiB)(?: \(GPU \d+; |\. GPU \d+ has a total capac)"
    r"|\bError (?:in [^\n()]{1,80} )?\([\w./-]+\.(?:cpp|cu|cc|c):\d+\): "
    # bounded runs: unbounded ones backtrack over a long line once per 'Check failed' and 'cudaSuccess' in it
    r"|Check failed: [^\n]{0,300}?(?:cudaSuccess|CUDA_SUCCESS)[^\n]{0,300}? vs\. |failed call to cu\w+: CUresult\("
    r"|\b(?:CUBLAS|CUDNN|CUSOLVER|CUSPARSE|CURAND)_STATUS_(?:NOT_|ALLOC|INVALID|ARCH|MAPPING|EXECUTION|INTERNAL|LICENSE|BAD_|MATRIX|ZERO|INSUFF|VERSION|TYPE_|OUT_OF|LENGTH|DOUBLE|LAUNCH|PREEXIST|INITIALIZATION|IRS_|RUNTIME|SUBLIB|SERIAL|DEPRECATED)|\bCUFFT_(?:INVALID_[A-Z_]+|ALLOC_FAILED|INTERNAL_ERROR|EXEC_FAILED|SETUP_FAILED|UNALIGNED_DATA|INCOMPLETE_PARAMETER_LIST|PARSE_ERROR|NO_WORKSPACE|NOT_IMPLEMENTED|LICENSE_ERROR|NOT_SUPPORTED)\b"
    r"|\bNVRTC_ERROR_(?:OUT_OF_MEMORY|PROGRAM_CREATION_FAILURE|INVALID_(?:INPUT|PROGRAM|OPTION)|COMPILATION|BUILTIN_OPERATION"
    r"|NO_NAME_EXPRESSIONS|NO_LOWERED_NAMES|NAME_EXPRESSION_NOT_VALID|INTERNAL_ERROR|TIME_FILE|NO_PCH|PCH_CREATE|CANCELLED"
    r"|TIME_TRACE|BUSY\b)"
    r"|DNN library initiali[sz]ation failed|Loaded runtime CuDNN library: |Unable to find a valid cuDNN algorithm"
    r"|no valid convolution algorithms available in CuDNN|(?:FIND|GET) was unable to find an engine to execute"
    r"|\bout of resource: [a-z]|OOM when allocating tensor "
    r"|Failed to get convolution algorithm\. |\], thread: \[\d+,\d+,\d+\] Assertion `|RESOURCE_EXHAUSTED: (?:Out of memory|Failed to allocate request)"
    r"|cudaMalloc failed: out of memory|failed to allocate CUDA\d{1,3} buffer of size \d|unable to allocate CUDA\d{1,3} buffer"
    r"|Insufficient GPU memory error: The available single GPU memory is \d"
    r"|but JAX was built against version \d|Outdated (?:" + JAX_LIBS + r") installation found|Mismatched PJRT plugin PJRT API version"
    r"|\bkernel version \d[\d.]{0,14} does not match DSO version \d|\b(?:libcuda|kernel) reported version is: \d"
    r"|Allocation on device \d{1,3} would exceed allowed memory|torch\.(?:cuda\.)?OutOfMemoryError(?:: |[*` \t]*(?:\r?\n|$))"
    r"|Can't enable access between nodes \d"
    r"|device >= 0 && device < num_gpus INTERNAL ASSERT FAILED\b"
    r"|\brocBLAS error: Could not initiali[sz]e Tensile host: No devices found\b"
    r"|\bStarting GPU coredump generation\b(?:, set the CUDA_COREDUMP_SHOW_PROGRESS\b|[ \t.]*(?:\r?\n|$))"
    r"|(?:cuda driver library|nvcuda|cudart) init failure: \d|cuInit err: \d|cudaSetDevice err: \d"
    r"|Unable to read CUDA capable devices\. Return status: \d"
    r"|ERROR: CUDA kernel \w{1,120} has no device code compatible with|ERROR: ggml-cuda was compiled without support for the current GPU"
    r"|\bcuBLAS error \d{1,2} at \S"
    r"|\b(?:cuBLAS|CUBLAS) Error: (?:the|an) [a-z]"
    r"|\.(?:cu|cpp|cc|h):\d{1,6} in function [^\n:]{1,120}(?:::[^\n:]{1,120}){0,4}: (?:cuDNN|cuBLAS|CUBLAS) Error:?[ \t]*(?:\r?\n|$)"
    r"|Check failed: [^\n]{0,300}?\bcudaSuccess\b[^\n]{0,300}? CUDA: \S|\bcu(?:da)?[A-Z]\w{1,60}\(\) failed with error #\d"
    r"|\] Call to cu[A-Z]\w{0,60} results in UNKNOWN_CUDA_ERROR"
    r"|\bCUDA_EXCEPTION_\d{1,2}, [A-Z]|\bCUDA Exception: [A-Z]"
    r"|" + CUDNN_FRONTEND.pattern + r"|\bGot (?:cutlass|CUTLASS) error: Error [A-Z]|\bcutlass[FB]: no kernel found to launch!"
    r"|\bBfloat16 is only supported on GPUs with compute capability of at least 8\.0\b|\bCurrent CUDA Device does not support bfloat16\b"
    r"|\bwhich is too old to be supported by the triton GPU compiler\b|\bTriton only supports devices of CUDA Capability >= \d"

)
_DETECT_GATES = ("cudaError", "hipError", "CUDA_ERROR_", "CUDA error", "CUDA driver error", "HIP error: ", "CUDA Error", "CUDA ERROR", "Cuda error", "Error [CUDA]",
                 "CUDA failure", "Cuda failure", "cuda runtime error", "THCudaCheck", "cudaGetDeviceCount", "cuInit",
                 "NVIDIA driver", "CUDA unknown error", "CUDA driver initialization", "CUDA out of memory", oom_message.TAIL_MARKER,
                 "Cuda API error detected", "failed to initiali", "cudaSuccess", "CUDA_SUCCESS", "CUresult(",
                 "_STATUS_", "CUFFT_", "NVRTC_ERROR_", "Failed to get convolution", "] Assertion `", "RESOURCE_EXHAUSTED",
                 "DNN library initiali", "Loaded runtime CuDNN", "cuDNN algorithm", "convolution algorithms available",
                 "unable to find an engine", "out of resource: ", "OOM when allocating tensor", "Error (", "Error in ",
                 TRTLLM_PEER_MARKER, "() failed with error #", "results in UNKNOWN_CUDA_ERROR", TORCH_DEVICE_INDEX_MARKER,
                 COREDUMP_MARKER, ROCBLAS_NO_DEVICE_MARKER, MEMORY_SAVER_MARKER) + LIBRARY_MARKERS + BF16_MARKERS + TRITON_GPU_MARKERS + CUDA_GDB_EXCEPTION_MARKERS + CUBLAS_TEXT_MARKERS + TE_ERROR_CUT_MARKERS + GGML_MARKERS + OOM_MARKERS + VERSION_MARKERS + DSO_MARKERS + DISCOVERY_MARKERS


def detect(text: str) -> bool:
    if any(g in text for g in _DETECT_GATES):  # each branch of DETECT needs a gate
        for m in DETECT.finditer(text):
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            line = text[start:end if end >= 0 else len(text)]
            if cufile_log.progress_line(line):  # libcufile's probe (cufile.log's INFO line): no application error
                continue
            if not m[0].startswith(NAME_PREFIXES):
                return True
            name = NAME.match(line, m.start() - start)
            if name is None or not _named_in_prose(line, name):  # (a name a reporter's sentence quotes is no output)
                return True
    if "(error code " in text and any(_error_code_entry(m) for m in ERROR_CODE.finditer(text)):
        return True
    # HPX's form only where the text is one the catalogue knows: an unknown text stays the catch-all's error line
    if "function returned error code" in text and any(catalogue.resolve(text=m["msg"].strip()) for m in RETURNED_CODE.finditer(text)):
        return True
    # TensorRT-LLM's and Triton's forms likewise (a Triton pinned pool short of host memory is none of the GPU's)
    if "CUDA runtime error in " in text or any(k in text for k in TRITON_STATUS_MARKERS):
        for line in text.splitlines():
            if "CUDA runtime error in " in line or any(k in line for k in TRITON_STATUS_MARKERS):
                if (rec := _read(line)) is not None and rec["form"] in ("runtime_error_in", "triton_status"):
                    return True
    # a number and a text printed together only where they agree (CODE_AND_TEXT)
    if "rror" in text and any(_agreeing(m) for m in CODE_AND_TEXT.finditer(text)):
        return True
    # one RE2 (DFA) pass over the catalogue's phrases, one over its shorter texts quoted whole
    return catalogue.text_has_phrase(text) or catalogue.text_has_quoted(text)


def _agreeing(m: re.Match) -> tuple[catalogue.Entry, str] | None:
    """The catalogue entry of CODE_AND_TEXT's number (runtime, else driver) whose text (or an older
    wording of it) the printed text starts with, case and a final period aside, and that text as
    printed; None when the number and the text name different errors or none."""
    num, msg = int(m["num"] or m["num2"]), m["msg"].strip()
    low = msg.lower()
    for api in ("runtime", "driver"):
        e = catalogue.by_code(num, api)
        for t in (e.text, *e.texts) if e is not None else ():
            t = t.lower().rstrip(".")
            if low.startswith(t) and not low[len(t):len(t) + 1].isalnum() and low[len(t):len(t) + 1] != "_":
                return e, msg[:len(t)]
    return None


def _error_code_entry(m: re.Match) -> catalogue.Entry | None:
    msg = m["msg"].strip()
    return None if msg.isdecimal() else catalogue.resolve(name=msg, text=msg)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    used: set[int] = set()
    seen: set[tuple] = set()
    reported: dict[tuple, dict[str, tuple[int, str, str]]] = {}  # (rank, pid) -> side -> (line no, line, version)
    last = last_line(artefact.lines)
    for no, line, start, _end in marked_lines(artefact, MARKERS):
        # the text after PyTorch's "Last error:" is NCCL's message: torch_log reads it
        forwarded = "Last error:" in line or _follows_last_error(artefact.text, start)
        if _owned(line) or forwarded:
            continue
        if "Plan failed with a" in line and TORCH_PLAN_FALLBACK.search(line) is not None:
            continue  # PyTorch trying its next cuDNN engine config: torch_warnings' benign warning, no failure
        if TF_PEER_NOTICE_MARKER in line and TF_PEER_NOTICE.search(line) is not None:
            used.add(no)  # TensorFlow's notice of one pair without peer access; it went on (above)
            continue
        rank = global_rank(artefact, line, no)
        p = PID.search(line) or PID.search(artefact.raw_line(no))  # also a Ray tag's pid= (facts/lines.py)
        pid = int(p["pid"]) if p else None
        # "Tried to allocate" alone (the message pasted from its size on) is read where its device clause follows
        if (oom_message.MARKER in line or oom_message.TAIL_MARKER in line) and (rec := oom_message.read(line)) is not None:
            used.add(no)
            if "error" in rec:
                b.error(no, rec["error"])
                continue
            key = ("oom", rec.get("device"), rec.get("tried_bytes"), rank, pid)
            if key not in seen:
                seen.add(key)
                b.add(CudaOom, no, text=line, rank=rank, pid=pid, **rec)
            continue
        if oom_message.MARKER in line:
            continue
        if oom_message.XLA_MARKER in line or "OOM when allocating tensor" in line or any(k in line for k in OOM_MARKERS):
            rec = oom_message.read_xla(line) or _read_tf_oom(line) or _read_other_oom(line)
            if rec is not None:
                used.add(no)
                key = ("oom", rec.get("device"), rec.get("tried_bytes"), rank, pid)
                if key not in seen:
                    seen.add(key)
                    b.add(CudaOom, no, text=line, rank=rank, pid=pid, **rec)
                continue
        if COREDUMP_MARKER in line:
            if COREDUMP.search(line) is not None:
                used.add(no)
                if ("coredump", rank, pid) not in seen:
                    seen.add(("coredump", rank, pid))
                    b.add(CudaGpuCoredump, no, text=line, rank=rank, pid=pid)
            continue
        if any(k in line for k in DSO_MARKERS):
            if _read_dso(b, no, line, rank, pid, reported, seen):
                used.add(no)
            continue
        lib = _read_library(line)
        rec = _read(line, last=no == last)
        if rec is not None and rec.pop("cut", False):
            b.limit(no, "cut_short", f"the CUDA error on the text's last line is cut short ({rec['message']}): read as "
                                     f"{rec['catalogue_name']}, the one error whose text begins so")
        # a line that names a library's status and a CUDA error of the catalogue (a report's title:
        # "CUDA_ERROR_ILLEGAL_ADDRESS and CUDNN_STATUS_EXECUTION_FAILED in batchnorm when training",
        # xingyul/sparse-winograd-cnn#4) gives both: the library's failure may be the consequence of the other
        recs = [r for r in (lib, rec if lib is None or (rec is not None and rec["catalogue_name"]) else None) if r is not None]
        if not recs:
            continue
        used.add(no)
        for rec in recs:
            key = (rec.get("library_status") or rec.get("library") or rec["catalogue_name"] or rec["message"], rank, pid)
            if key in seen:
                continue
            seen.add(key)
            b.add(CudaError, no, text=line, rank=rank, pid=pid, api_call=_api_call(line), **rec)
    _emit_reported(b, reported, seen)
    # the catalogue's longer texts anywhere on a line, then its shorter ones quoted whole
    for lines, find, form in ((_phrase_lines, catalogue.find_phrase, "phrase"),
                              (_quoted_lines, catalogue.find_quoted, "quoted_text")):
        for no, line in lines(artefact, used):
            found = find(line)
            if found is None or _owned(line):
                continue
            entry, printed = found
            _add_entry(artefact, b, used, seen, no, line, entry, printed, form)
    _read_code_and_text(artefact, b, used, seen)
    used.update(no for no, line, _s, _e in marked_lines(artefact, BOILERPLATE_MARKERS) if BOILERPLATE.match(line))
    result.lines_used = len(used)
    return result


def _read_dso(b: FactBuilder, no: int, line: str, rank: int | None, pid: int | None,
              reported: dict[tuple, dict[str, tuple[int, str, str]]], seen: set[tuple]) -> bool:
    """TensorFlow's/XLA's driver version diagnostics (DSO_MISMATCH, REPORTED_VERSION); True when the line was read."""
    m = DSO_MISMATCH.search(line)
    if m is not None:
        key = ("dso", m["kernel"], m["dso"], rank, pid)
        if key not in seen:
            seen.add(key)
            b.add(CudaDriverLibraryMismatch, no, text=line, kernel_version=m["kernel"], library_version=m["dso"], rank=rank, pid=pid)
        return True
    r = REPORTED_VERSION.search(line)
    if r is None:
        return False
    reported.setdefault((rank, pid), {})[r["side"]] = (no, line, r["ver"])
    return True


def _emit_reported(b: FactBuilder, reported: dict[tuple, dict[str, tuple[int, str, str]]], seen: set[tuple]) -> None:
    """A process whose libcuda and kernel module reported different versions, where its ERROR line was not read
    (cut short in a paste): the mismatch, cited at the kernel's line."""
    for (rank, pid), sides in reported.items():
        if "libcuda" not in sides or "kernel" not in sides:
            continue
        (no, line, kernel), dso = sides["kernel"], sides["libcuda"][2]
        if kernel == dso or ("dso", kernel, dso, rank, pid) in seen:
            continue
        seen.add(("dso", kernel, dso, rank, pid))
        b.add(CudaDriverLibraryMismatch, no, text=line, kernel_version=kernel, library_version=dso, rank=rank, pid=pid)


def _phrase_lines(artefact: Artefact, used: set[int]):
    """(line number, line) of the lines not read already that hold a catalogue phrase."""
    if not catalogue.text_has_phrase(artefact.text):
        return
    lines = artefact.lines
    for no, line in enumerate(lines, 1):
        if no in used or not catalogue.text_has_phrase(line):
            continue
        if "Last error:" in line or (no > 1 and lines[no - 2].rstrip().endswith("Last error:")):
            continue  # NCCL's message forwarded by PyTorch: torch_log reads it
        yield no, line


def _quoted_lines(artefact: Artefact, used: set[int]):
    """(line number, line) of the lines not read already that quote a shorter catalogue text whole."""
    if not catalogue.text_has_quoted(artefact.text):
        return
    for no, line in enumerate(artefact.lines, 1):
        if no not in used and catalogue.text_has_quoted(line):
            yield no, line


def _read_code_and_text(artefact: Artefact, b: FactBuilder, used: set[int], seen: set[tuple]) -> None:
    """CODE_AND_TEXT's number and text, where they agree, on the lines not read already."""
    text = artefact.text
    if "rror" not in text:
        return
    for m in CODE_AND_TEXT.finditer(text):
        found = _agreeing(m)
        if found is None:
            continue
        entry, printed = found
        no = artefact.line_of(m.start())
        line = artefact.lines[no - 1]
        start = text.rfind("\n", 0, m.start()) + 1
        if no in used or _owned(line) or "Last error:" in line or _follows_last_error(text, start):
            continue  # NCCL's message (forwarded by PyTorch): the NCCL facts read it
        _add_entry(artefact, b, used, seen, no, line, entry, printed, "code_and_text", printed_code=int(m["num"] or m["num2"]))


def _add_entry(artefact: Artefact, b: FactBuilder, used: set[int], seen: set[tuple], no: int, line: str,
               entry: catalogue.Entry, printed: str, form: str, printed_code: int | None = None) -> None:
    """A ``cuda_error`` of a catalogue entry found on line ``no`` by a whole-line form (phrase, code_and_text),
    once per error, rank and process."""
    used.add(no)
    p = PID.search(line) or PID.search(artefact.raw_line(no))  # also a Ray tag's pid= (facts/lines.py)
    rank, pid = global_rank(artefact, line, no), (int(p["pid"]) if p else None)
    key = (entry.name, rank, pid)
    if key in seen:
        return
    seen.add(key)
    b.add(CudaError, no, text=line, rank=rank, pid=pid, error_name=entry.name, catalogue_name=entry.name,
          runtime_name=_runtime_name(entry), code=entry.code, printed_code=printed_code, message=printed[:300], form=form,
          api_call=_api_call(line))


def _follows_last_error(text: str, start: int) -> bool:
    """True when the line before the one at ``start`` ends with PyTorch's ``Last error:``."""
    if start == 0:
        return False
    prev_start = text.rfind("\n", 0, start - 1) + 1
    return text[prev_start:start - 1].rstrip().endswith("Last error:")


def _read(line: str, last: bool = False) -> dict | None:
    """The fields of a ``cuda_error`` for the first form ``line`` holds, or None. On the text's last line (``last``) a
    text no entry has whole, cut short there, names the one entry whose text it begins (catalogue.cut_entry; a number
    printed beside it must agree): ``cut`` is then True (parse marks the line cut_short)."""
    for form, m in _forms(line):
        d = m.groupdict()
        num = d.get("num") or d.get("num2") or d.get("num3")
        printed = int(num) if num else int(d["hex"], 16) if d.get("hex") else None
        msg = (d.get("msg") or "").strip()
        name = m["name"] if form == "name_only" else None
        if form == "name_only" and line[m.end():m.end() + 2] == ": ":
            msg = line[m.end() + 2:].strip()  # "cudaErrorX: text" / "CUDA_ERROR_X: text"
        if form != "name_only":
            n = _printed_name(line)  # a name printed beside the text is the surest key
            name = n["name"] if n and catalogue.by_name(catalogue.cuda_name(n["name"])) else None
        driver_call = m.group().startswith(("cuInit", "failed call to cuInit")) \
            or form in ("curesult", "check_error", "numba_unknown") or (d.get("call") or "cuda").startswith("cu") and not (d.get("call") or "cuda").startswith("cuda")
        api = "driver" if driver_call else "runtime"
        if form == "memory_saver":
            api = "driver" if d["what"] == "CUresult" else "runtime"
        if form == "check":
            api = SUCCESS.get(d["lhs"].strip()) or SUCCESS.get(d["rhs"].strip())
            if api is None:
                continue  # CHECK_EQ of something else (cuDNN, cuBLAS status)
            printed = int(d["b"] if d["lhs"].strip() in SUCCESS else d["a"])
            msg = re.sub(r"^(?:Cuda Error|CUDA(?: error)?)\s*:\s*", "", msg, flags=re.I)
        if form == "check_streamed":
            api = "runtime"  # cudaGetErrorString's text of the cudaError_t the expression tested
        if form == "call_failed":
            api = "driver" if not d["call"].startswith("cuda") else "runtime"
        if form == "discovery_status":
            api = "driver" if d.get("drv") or d.get("drv2") else "runtime"  # cuInit's CUresult, else a cudaError_t
            printed = int(d.get("num4") or d.get("num5")) if printed is None else printed
        if form == "error_code":
            n = NAME.fullmatch(msg)
            name = n["name"] if n and catalogue.by_name(catalogue.cuda_name(n["name"])) else None
        if form == "torch_device_index":
            name = "cudaErrorInvalidDevice"  # PyTorch's own check of the index, CUDA's 101 in its words
        if form == "rocblas_no_device":
            name = "cudaErrorNoDevice"  # rocBLAS found no GPU: HIP's (and CUDA's) 100
        if form == "torch" and name is None and (h := HIP_NAME.match(msg)) is not None \
                and catalogue.by_name(catalogue.cuda_name(h["name"])):
            name = h["name"]  # PyTorch's ROCm build before 5.x printed the error's name: "HIP error: hipErrorNoDevice"
        if form == "quoted" and "'" in line[m.end():]:
            # a text with an apostrophe ("caller's grid depth", "doesn't have valid Grid license") ends at the last quote
            msg = line[m.start("msg"):line.rfind("'")].strip()
        code_form = form in ("memory_saver", "numbered", "numbered_at", "quoted", "cuda_gdb", "check", "curesult", "call_failed", "numba_unknown",
                             "discovery_status")
        entry = catalogue.resolve(name=name, text=msg or None, api=api, code=printed if code_form else None)
        cut = None
        if entry is None and last and msg and form != "name_only" and (cut := catalogue.cut_entry(msg)) is not None \
                and code_form and printed is not None and cut.code != printed:
            cut = None  # the number a form reads names another error (a THC number of CUDA <= 9 is not compared)
        entry = entry or cut
        if form in ("curesult", "numba_unknown") and entry is None:
            msg = m.group().strip()  # a driver call that failed with a code no catalogue names: read as that, unresolved
        if form == "name_only" and entry is None:
            continue  # a word that looks like a CUDA name but is none (a variable, a newer enum)
        if form in ("numbered", "cuda_gdb", "init", "check", "error_code", "check_error", "check_streamed",
                    "call_failed", "returned_code", "runtime_error_in", "triton_status", "discovery_status") and entry is None:
            continue
        if form == "triton_status" and d["what"].startswith("pinned") and entry.name == "cudaErrorMemoryAllocation":
            continue  # cudaHostAlloc short of host memory: the pool is off, no GPU allocation failed
        rec = dict(error_name=name or (entry.name if entry else None), catalogue_name=entry.name if entry else None,
                   runtime_name=_runtime_name(entry),
                   code=entry.code if entry else None, printed_code=printed,
                   message=(msg or line.strip())[:300], form=form, source_file=d.get("file") or d.get("file2"),
                   source_line=int(d.get("fline") or d.get("fline2")) if d.get("fline") or d.get("fline2") else None,
                   driver_cuda=None)
        if cut is not None:
            rec["cut"] = True
        if form == "pytorch_init" and d.get("ver"):
            v = int(d["ver"])
            rec["driver_cuda"] = f"{v // 1000}.{v % 1000 // 10}"
        return rec
    return None


def read_message(text: str) -> dict | None:
    """The fields of a ``cuda_error`` for a CUDA error in ``text``, a message another reader joined whole from the rows
    its program cut it into (Triton's model-status table: facts/parsers/triton_model_table.py), or None."""
    return None if any(k in text for k in NCCL_OWNED) else _read(text)


def _cut_condition(lib: str, cond: str) -> str | None:
    """The one failure status of ``lib`` whose name begins with ``cond``, a name cut at the line's end
    (``CUBLAS_STATUS_EXECUTION_FAI``), or None where none or several do (``CUDNN_STATUS_SUBLIB``)."""
    names = CUDNN_CATEGORIES if lib == "CUDNN" else LIBRARY_CONDITIONS[lib]
    found = [n for n in names if n.startswith(cond)]
    return found[0] if len(found) == 1 else None


def _cut_text(text: str) -> str | None:
    """The cuBLAS status whose cublasGetStatusString text alone begins with ``text`` (cut at the line's end)."""
    text = text.rstrip()
    found = [c for t, c in CUBLAS_STATUS_BY_TEXT.items() if t.startswith(text)] if len(text) >= _CUT_TEXT_MIN else []
    return found[0] if len(found) == 1 else None


def _read_library(line: str) -> dict | None:
    """The fields of a ``cuda_error`` for a CUDA library's failure status on ``line`` (a status name of
    cuBLAS, cuDNN, cuSOLVER, cuSPARSE, cuFFT or cuRAND, TensorFlow's cuDNN-initialisation message) or
    a device-side assert's own line; None for anything else."""
    for m in LIBRARY_STATUS.finditer(line):
        lib = m["lib"] or ("NVRTC" if m["ncond"] else "CUFFT")
        cond = m["cond"] or m["fcond"] or m["ncond"]
        if lib == "CUDNN":
            known = cond in CUDNN_CATEGORIES or cond.startswith(tuple(c + "_" for c in CUDNN_CATEGORIES))
        else:
            known = cond in LIBRARY_CONDITIONS[lib]
        if not known:
            cond = _cut_condition(lib, cond) if not line[m.end():].strip() else None
            if cond is None:
                continue  # CUBLAS_STATUS_SUCCESS, CUFFT_R2C, CUFFT_FORWARD: no failure
        call = LIBRARY_CALL.search(line, m.end())
        return dict(error_name=m["status"], catalogue_name=None, runtime_name=None, code=None, printed_code=None,
                    message=line.strip()[:300], form="library_status", source_file=None, source_line=None,
                    driver_cuda=None, library=lib.lower(), library_status=m["status"], library_condition=cond,
                    call=call["call"].strip()[:300] if call else None)
    for pattern, condition in ((TF_CUDNN_INIT, "NOT_INITIALIZED"), (XLA_DNN_INIT, "NOT_INITIALIZED"),
                               (CUDNN_VERSION_MISMATCH, "VERSION_MISMATCH"), (CUDNN_NO_ALGORITHM, "NO_USABLE_ALGORITHM")):
        if pattern.search(line):
            return dict(error_name=None, catalogue_name=None, runtime_name=None, code=None, printed_code=None,
                        message=line.strip()[:300], form="library_status", source_file=None, source_line=None,
                        driver_cuda=None, library="cudnn", library_status=None, library_condition=condition, call=None)
    if CUDNN_FRONTEND.search(line) is not None:
        return dict(error_name=None, catalogue_name=None, runtime_name=None, code=None, printed_code=None,
                    message=line.strip()[:300], form="library_status", source_file=None, source_line=None,
                    driver_cuda=None, library="cudnn", library_status=None, library_condition="NO_USABLE_ALGORITHM", call=None)
    if (c := CUTLASS_STATUS.search(line)) is not None:
        status = "Error " + c["status"]
        if c["status"] == "Insufficient Driver":
            entry = catalogue.by_name("cudaErrorInsufficientDriver")
            if entry is not None:
                return dict(error_name=status, catalogue_name=entry.name, runtime_name=entry.name, code=entry.code,
                            printed_code=None, message=c[0], form="cutlass_status",
                            source_file=None, source_line=None, driver_cuda=None, library="cutlass", library_status=status)
        else:
            return dict(error_name=status, catalogue_name=None, runtime_name=None, code=None, printed_code=None,
                        message=c[0], form="library_status", source_file=None, source_line=None,
                        driver_cuda=None, library="cutlass", library_status=status,
                        library_condition=CUTLASS_CONDITIONS[c["status"]], call=None)
    if (m := JAX_VERSION_CHECK.search(line) or PJRT_MISMATCH.search(line)) is not None:
        lib = (m.groupdict().get("lib") or m.groupdict().get("lib2") or "pjrt").lower()
        return dict(error_name=None, catalogue_name=None, runtime_name=None, code=None, printed_code=None,
                    message=line.strip()[:300], form="library_status", source_file=None, source_line=None,
                    driver_cuda=None, library=lib, library_status=None, library_condition="VERSION_MISMATCH", call=None)
    if TRITON_OUT_OF_RESOURCES.search(line) is not None:
        entry = catalogue.by_name("cudaErrorLaunchOutOfResources")
        if entry is not None:
            return dict(error_name="OutOfResources", catalogue_name=entry.name, runtime_name=entry.name, code=entry.code,
                        printed_code=None, message=line.strip()[:300], form="triton_out_of_resources", source_file=None,
                        source_line=None, driver_cuda=None)
    if (c := CUBLAS_NUMBERED.search(line)) is not None and int(c["num"]) in CUBLAS_STATUS_BY_NUMBER:
        cond = CUBLAS_STATUS_BY_NUMBER[int(c["num"])]
        return dict(error_name=f"CUBLAS_STATUS_{cond}", catalogue_name=None, runtime_name=None, code=None,
                    printed_code=None, message=line[c.start():].strip()[:300], form="library_status",
                    source_file=c["file"], source_line=int(c["fline"]), driver_cuda=None, library="cublas",
                    library_status=f"CUBLAS_STATUS_{cond}", library_condition=cond, call=None)
    if (c := CUBLAS_STATUS_TEXT.search(line) or CUBLAS_TEXT_CUT.search(line)) is not None:
        cond = CUBLAS_STATUS_BY_TEXT.get(c["text"]) or _cut_text(c["text"])
        if cond is None:
            return None
        return dict(error_name=f"CUBLAS_STATUS_{cond}", catalogue_name=None, runtime_name=None, code=None,
                    printed_code=None, message=line[c.start():].strip()[:300], form="library_status",
                    source_file=None, source_line=None, driver_cuda=None, library="cublas",
                    library_status=f"CUBLAS_STATUS_{cond}", library_condition=cond, call=None)
    if (t := TE_ERROR_CUT.search(line)) is not None:
        return dict(error_name=None, catalogue_name=None, runtime_name=None, code=None, printed_code=None,
                    message=line[t.start():].strip()[:300], form="library_status", source_file=t["file"],
                    source_line=int(t["fline"]), driver_cuda=None, library=t["lib"].lower(), library_status=None,
                    library_condition="STATUS_CUT_OFF", call=None)
    if (k := MEM_EFF_NO_KERNEL.search(line)) is not None:
        return dict(error_name=None, catalogue_name=None, runtime_name=None, code=None, printed_code=None,
                    message=k[0], form="mem_eff_attention_no_kernel", source_file=None, source_line=None, driver_cuda=None)
    if (bf := BF16_UNSUPPORTED.search(line)) is not None:
        return dict(error_name=None, catalogue_name=None, runtime_name=None, code=None, printed_code=None,
                    message=line[bf.start():].strip()[:300], form="bf16_unsupported", source_file=None, source_line=None,
                    driver_cuda=None)
    if (t := TRITON_GPU_TOO_OLD.search(line)) is not None:
        return dict(error_name=None, catalogue_name=None, runtime_name=None, code=None, printed_code=None,
                    message=line[t.start():].strip()[:300], form="triton_gpu_too_old", source_file=None, source_line=None,
                    driver_cuda=None)
    if (g := GGML_NO_DEVICE_CODE.search(line)) is not None:
        return dict(error_name=None, catalogue_name=None, runtime_name=None, code=None, printed_code=None,
                    message=(line[g.start():].strip() if g["kernel"] else g[0] + ".")[:300], form="ggml_no_device_code", source_file=None,
                    source_line=None, driver_cuda=None)
    if TRTLLM_PEER.search(line) is not None:
        entry = catalogue.by_name("cudaErrorPeerAccessUnsupported")
        if entry is not None:
            return dict(error_name=None, catalogue_name=entry.name, runtime_name=entry.name, code=entry.code,
                        printed_code=None, message=line.strip()[:300], form="trtllm_peer_access", source_file=None,
                        source_line=None, driver_cuda=None)
    if (x := CUDA_GDB_EXCEPTION.search(line)) is not None:
        entry = catalogue.by_name(CUDA_GDB_EXCEPTIONS.get(x["name"] or x["name2"], ""))
        if entry is not None:
            return dict(error_name=None, catalogue_name=entry.name, runtime_name=entry.name, code=entry.code,
                        printed_code=None, message=line.strip()[:300], form="cuda_gdb_exception", source_file=None,
                        source_line=None, driver_cuda=None)
    if (da := DEVICE_ASSERT.search(line)) is not None:
        entry = catalogue.by_name("cudaErrorAssert")
        if entry is not None:
            # c10d's NaN check (TORCH_NCCL_NAN_CHECK) asserts on purpose when a collective's input holds NaN: form
            # nan_check, the NaN itself read by training_throughput (training_loss_not_finite, collective_input)
            form = "nan_check" if "checkForNaN: " in line and da["expr"].startswith("!isnan(") else "device_assert"
            return dict(error_name=entry.name, catalogue_name=entry.name, runtime_name=entry.name, code=entry.code,
                        printed_code=None, message=line.strip()[:300], form=form, source_file=None,
                        source_line=None, driver_cuda=None)
    return None


def _read_tf_oom(line: str) -> dict | None:
    """The ``cuda_oom`` fields of TensorFlow's GPU out-of-memory status on ``line``, or None."""
    m = TF_OOM.search(line)
    if m is None:
        return None
    return dict(device=int(m["dev"] or m["dev2"]), tried_bytes=None)


def _read_other_oom(line: str) -> dict | None:
    """The ``cuda_oom`` fields of ggml's, PyTorch's cudaMallocAsync and MLC LLM's out-of-memory lines (above), or None."""
    if (m := GGML_CUDA_MALLOC.search(line)) is not None:
        return dict(device=int(m["dev"]) if m["dev"] else None,
                    tried_bytes=round(float(m["mib"]) * (1 << 20)) if m["mib"] else None)
    if (m := GGML_BUFFER.search(line)) is not None:
        return dict(device=int(m["dev"] or m["dev2"]), tried_bytes=int(m["bytes"]) if m["bytes"] else None)
    if (m := TORCH_ASYNC_OOM.search(line)) is not None:
        return dict(device=int(m["dev"]), tried_bytes=None)
    if TORCH_OOM_TYPE.search(line) is not None:
        return dict(device=None, tried_bytes=None)
    if (m := MLC_CAPACITY.search(line)) is not None:  # the weights and buffers one GPU would have to hold
        return dict(device=None, tried_bytes=round((float(m["weights"]) + float(m["temp"])) * (1 << 20)))
    return None


def _runtime_name(entry: catalogue.Entry | None) -> str | None:
    """The runtime spelling of an error: CUDA_ERROR_ILLEGAL_ADDRESS -> cudaErrorIllegalAddress
    (same code, same text); None for a driver error without a runtime twin."""
    if entry is None or entry.api == "runtime":
        return entry.name if entry else None
    twin = catalogue.by_text(entry.text)
    return twin.name if twin is not None and twin.api == "runtime" and twin.code == entry.code else None


def _forms(line: str):
    for form, pattern in (("memory_saver", MEMORY_SAVER), ("pytorch_init", PYTORCH_INIT), ("check", CHECK_FAILED), ("check_streamed", CHECK_STREAMED),
                          ("call_failed", CALL_FAILED), ("error_code", ERROR_CODE),
                          ("thc", THC), ("numbered_at", NUMBERED_AT), ("quoted", QUOTED), ("torch", TORCH_ERROR), ("numbered", ORT_FAILURE),
                          ("numbered", NUMBERED), ("curesult", CURESULT), ("numba_unknown", NUMBA_UNKNOWN),
                          ("init", INIT_FAILED), ("cuda_gdb", CUDA_GDB),
                          ("check_error", CHECK_ERROR), ("returned_code", RETURNED_CODE),
                          ("runtime_error_in", RUNTIME_ERROR_IN), ("triton_status", TRITON_CUDA_STATUS),
                          ("discovery_status", DISCOVERY_STATUS), ("torch_device_index", TORCH_DEVICE_INDEX),
                          ("rocblas_no_device", ROCBLAS_NO_DEVICE)):
        m = pattern.search(line)
        if m is not None:
            yield form, m
    # "cudaErrorX: text" / "CUDA_ERROR_X: text" and a name alone ("results in CUDA_ERROR_NO_DEVICE (100)")
    for m in NAME.finditer(line):
        if not _named_in_prose(line, m) and not _COMPARED.search(line, max(0, m.start() - 4), m.start()):
            yield "name_only", m


def _printed_name(line: str) -> re.Match | None:
    """The first CUDA error name on ``line`` that is not an operand a printed check expression compares against."""
    return next((m for m in NAME.finditer(line) if not _COMPARED.search(line, max(0, m.start() - 4), m.start())), None)


# A name in backticks inside a sentence is the reporter naming a status, not a program printing it (programs do not
# put backticks round their statuses; a reporter's markdown does):
# ... We poll NCCL errors by first checking the scheduled stream status, and, if it is equal to `cudaErrorNotReady`, we
#   consequently check the communicator errors by calling `ncclCommGetAsyncError`. ...          (aws/aws-ofi-nccl#346)
# A program's own quoting stays read: "Error: `cudaErrorNotReady`" (a label before it), PyTorch's "Search for
# `cudaErrorDevicesUnavailable' in ..." (its closing quote is "'").
_PROSE_WORD_BEFORE = re.compile(r"\b[a-z][a-z']{0,30},?[ \t]{1,4}`$")
_THREE_WORDS = re.compile(r"[A-Za-z][a-z']{1,30},? [a-z']{2,30},? [a-z']{2,30}")
_BACKTICKED = re.compile(r"`[^`\n]{0,200}`")


def _named_in_prose(line: str, m: re.Match) -> bool:
    """Whether the name ``m`` is in backticks, inside a sentence: a lowercase word right before it, and three words
    in a row in the line's own words (its backticked spans left out)."""
    if line[m.end():m.end() + 1] != "`" or _PROSE_WORD_BEFORE.search(line, max(0, m.start() - 40), m.start()) is None:
        return False
    return _THREE_WORDS.search(_BACKTICKED.sub(" ", line)) is not None


# The CUDA driver or runtime function a line names beside its error (the first one: the failing call's
# expression comes first in every form seen):
# [CUDA_ERROR_INVALID_VALUE] invalid argument in expression cuMemSetAccess((CUdeviceptr) buffer, roundedUpAllocationSize, &desc, 1 ) on gpub200-nom6ae0518, rank = 8 in ...   (nvbandwidth's CU_ASSERT, NVIDIA/nvbandwidth#44)
# multinode run fails with [CUDA_ERROR_NOT_PERMITTED] error in cuMemCreate() call                                   (NVIDIA/nvbandwidth#46, its title)
API_CALL = re.compile(r"\b(?P<fn>cu(?:da)?[A-Z][A-Za-z0-9_]{1,60}) ?\(")
# ... failed initializing StreamExecutor for CUDA device ordinal 0: Internal: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 11523260416   (tensorflow/tensorflow#30594)
# ... Internal: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY; total memory reported: 18446744073648275456   (tensorflow/tensorflow#7272, TF 1.0)
#   (TensorFlow's and XLA's stream_executor/cuda/cuda_driver.cc name the driver call without parentheses:
#   "failed call to cuDevicePrimaryCtxRetain: " + ToString(res), then "; total memory reported: " when res is
#   CUDA_ERROR_OUT_OF_MEMORY; "failed call to cuInit: ", "failed call to cuDeviceGet: " the same way)
TF_CALL = re.compile(r"\b[Ff]ailed call to (?P<fn>cu[A-Z][A-Za-z0-9_]{1,60}): ")


def _api_call(line: str) -> str | None:
    found = [m for m in (API_CALL.search(line), TF_CALL.search(line)) if m is not None]
    return min(found, key=lambda m: m.start())["fn"] if found else None


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (DETECT, ERROR_CODE.pattern, RETURNED_CODE.pattern, catalogue.phrase_pattern(), catalogue.quoted_pattern(),
              # RUNTIME_ERROR_IN and TRITON_CUDA_STATUS without their line end (a signature is searched in the whole text)
              r"\bCUDA runtime error in [^\n]{1,300}: [^\n:()]",
              r"\b(?:unable to get number of CUDA devices|pinned memory pool will not be available"
              r"|failed to get device count, GPU metrics will not be available)[^\n:]{0,200}: [^\n:]",
              CODE_AND_TEXT)

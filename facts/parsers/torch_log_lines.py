"""Line formats of PyTorch distributed logs, shared by :mod:`torch_log` (which owns the facts).

Every pattern carries a real line above it; the sources of each are listed in
``fixtures/artefacts/torch_log/README.md``. Formats differ by PyTorch version:
1.13-2.1 print ``[E ProcessGroupNCCL.cpp:464] [Rank 0] ...``; 2.2 adds the ``[rank7]:`` line
prefix; 2.4 a glog timestamp and ``[PG 0 (default_pg) Rank 7]``; 2.5+ ``[PG ID 0 PG GUID
0(default_pg) Rank 1]``; 2.6+ also ``failure detected by watchdog at work sequence id``.
"""
from __future__ import annotations

import re
import signal as _signal
from functools import lru_cache
from typing import Any, Iterator

import re2

from stethoscope.facts.lines import label_rank
from stethoscope.facts.parsers.base import Artefact, FactBuilder

#: DeepSpeed's logger's source field: [comm.py:152:init_deepspeed_backend]
DS_SOURCE = r"\[[\w.-]+\.py:\d+:\w+\] "

# DeepSpeed ZeRO-3's prefetcher dropping its module trace (deepspeed/runtime/zero/partitioned_param_coordinator.py
# trace_prologue, print_rank_0(..., force=True), the same two f-strings from 0.9 to 0.16):
#   f"Invalidate trace cache @ step {self.__step_id}: expected module {expected_module_id}, but got module {sub_module.id}"
#   f"Invalidate trace cache @ step {self.__step_id} and module {sub_module.id}: cache has only {len(...)} modules"
#   3%|▎         | 270/9847 [05:50<3:17:42,  1.24s/it]Invalidate trace cache @ step 1: expected module 25, but got module 323
#     (deepspeedai/DeepSpeed#5008: after tqdm's bar, on its line)
#   Invalidate trace cache @ step 0 and module 1458: cache has only 0 modules      (the second form, DeepSpeed's f-string filled in)
DS_TRACE_INVALIDATED = re.compile(r"Invalidate trace cache @ step (?P<step>\d+)(?:: expected module (?P<want>\d+), but got module "
                                  r"(?P<got>\d+)| and module (?P<got2>\d+): cache has only (?P<cache>\d+) modules)")

# ncclGetErrorString()'s texts that name a failure (NVIDIA/nccl src/init.cc; the "(run with NCCL_DEBUG=...)"
# hints and " - please report ..." came in later releases): the start of each
NCCL_RESULT_TEXT = r"(?:unhandled (?:cuda|system) error|internal error|invalid (?:argument|usage)|remote process exited)"

# What NCCLCHECK's quotes hold ("Failed, NCCL error %s:%d '%s'" of NCCL's examples, nccl-tests, TensorRT-LLM, and
# TransformerEngine's userbuffers with '' in place of ncclGetErrorString()): a result's text (cut or whole), or any
# closed quote but ncclSuccess's 'no error' (an empty one, ncclInProgress's 'NCCL operation in progress', 'unknown
# result code'): an NCCL call failed either way, its result unknown when the text is none of NCCL_RESULT_TEXT's
NCCLCHECK_QUOTE = r"'(?:" + NCCL_RESULT_TEXT + r"|(?!no error')[^'\n]{0,200}')"
#: the same without the look-ahead, for the signatures re2 compiles (facts/classify.py): 'no error' is claimed, then not read
NCCLCHECK_QUOTE_ANY = r"'(?:" + NCCL_RESULT_TEXT + r"|[^'\n]{0,200}')"

# Anything unmistakably from torch.distributed, anywhere in the head (the healthy capture has
# only the torchrun banner: "W1129 18:30:26.245000 1668 torch/distributed/run.py:851] ***").
DETECT = re.compile(
    r"ProcessGroupNCCL|ProcessGroupGloo\.cpp:\d|Watchdog caught collective operation timeout|torch[./]distributed[./]"
    r"|ChildFailedError|DistBackendError|^\[rank\d+\]:"
    # NCCL's messages as PyTorch forwards them or people paste them (torch_nccl_forwarded)
    r"|^Duplicate GPU detected : rank \d|^Failed to \w+ NVLink SHARP \(NVLS\)|^Last error:"  # at a line start: not NCCL's own WARN line
    r"|DataLoader worker \(pid (?:\d+|[Xx]{2,8}|\.{3}|…)\) is killed by signal: |Unexpected bus error encountered in worker\. "
    # PaddlePaddle's DataLoader worker, the same SIGBUS in its own words (DATALOADER_SHM below)
    r"|Unexpected BUS error encountered in DataLoader worker\. "
    # c10d's NCCLComm::getNcclComm on a communicator the watchdog aborted (RuntimeError in 1.x, DistBackendError in 2.x):
    r"|NCCL communicator was aborted (?:on rank \d|after a previous error)"
    # the agent's worker report with its Python logging prefix stripped (facts/lines.py: "ERROR:torch...api:" of 1.9-2.0)
    # rich's log handler (Accelerate's launcher) wraps the message in its column and puts the source at the right:
    #  ERROR    failed (exitcode: -9) local_rank: 5 (pid: 22) of  api.py:673      (huggingface/accelerate#1214; " binary: ..." next)
    r"|failed \(exitcode: -?\d+\) local_rank: \d+ \(pid: \d+\) of(?: binary: |[ \t]+api\.py:\d+[ \t]*\r?$)"
    # the agent's note on a worker that failed without an error file (NO_ERROR_FILE_CHILD below, 1.9-1.10)
    r"|Child process \d+ \(local_rank \d+\) FAILED \(exitcode -?\d+\)"
    # mp.spawn's report of a dead child, or of a child that raised (SPAWN_EXITED below)
    # ProcessGroupWrapper's collective fingerprint check (PG_WRAPPER_MISMATCH below)
    r"|Detected mismatch between collectives on ranks\. Rank \d+ is running "
    r"|(?:\bProcessExitedException|^Exception): process \d+ terminated with (?:signal SIG[A-Z0-9]+|exit code -?\d+)"
    r"|^[ \t]*-- Process \d+ terminated with the following error:"
    # a record of torchrun's failures table pasted without the table's title or its "[N]:" line:
    #   rank      : 0 (local_rank: 0)
    r"|^[ \t]*rank[ \t]*:[ \t]*-?\d+ \(local_rank: -?\d+\)[ \t]*\r?$"
    # a record of that table whose lines a log console joined into one (FLAT_RECORD below)
    r"|\]:[ \t]+time[ \t]*:[ \t]*\S{1,40}[ \t]+host[ \t]*:[ \t]*\S{1,253}[ \t]+rank[ \t]*:[ \t]*-?\d{1,9} \(local_rank: "
    # NCCL's ncclGetErrorString() raised by a Python wrapper of NCCL, vLLM's and SGLang's
    # pynccl_wrapper.py NCCL_CHECK: raise RuntimeError(f"NCCL error: {error_str}") (vLLM docs, troubleshooting):
    # RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)
    # RuntimeError: NCCL error: remote process exited or there was a network error
    #   (not XLA's "Aborting communicator: 0x... due to async NCCL error: ...", the xla_nccl reader's: "async " before it)
    r"|(?:(?:^|[^ \n]|[^c\n] )NCCL error|Failed to initialize NCCL communicator): (?:unhandled (?:cuda|system) error|internal error|invalid (?:argument|usage)|remote process exited)"
    # c10d 1.x's C10D_NCCL_CHECK from a file that is not ProcessGroupNCCL.cpp (torch/lib/c10d/NCCLUtils.hpp: "NCCL error in: "
    # + std::string(__FILE__) + ":" + std::to_string(__LINE__) + ", " + ncclGetErrorWithVersion(error), thrown as
    # std::runtime_error; before 1.2 ncclGetErrorString(error) alone); 2.x's DistBackendError is matched above:
    # RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/../c10d/NCCLUtils.hpp:82, invalid argument, NCCL version 2.4.8   (facebookresearch/ParlAI#3084)
    r"|NCCL error in: [^,\n]{1,300}:\d{1,6}, " + NCCL_RESULT_TEXT +
    # c10d's getNcclErrorDetailStr (NCCLUtils.cpp: "ncclSystemError: System call (e.g. socket, malloc) or external library
    # call failed or device error. ", "ncclUnhandledCudaError: Call to CUDA function failed.", "ncclInternalError: Internal
    # check failed.", "ncclInvalidArgument: Invalid value for an argument.", "ncclInvalidUsage: This usually reflects invalid
    # usage of NCCL library.", "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting
    # prematurely.") on a line of its own, the "NCCL error in: ..." line before it left out of the paste:
    # ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. It can be also caused by unexpected exit of a remote peer, you can check NCCL warnings for failure reason and see if there is connection closure by a peer.   (turingaicloud/quickstart#6)
    r"|^[ \t]*nccl(?:UnhandledCuda|System|Internal|InvalidArgument|InvalidUsage|Remote)Error: (?:Call to CUDA function failed\."
    r"|System call \(e\.g\. socket, malloc\) or external library call failed|Internal check failed\.|Invalid value for an argument\."
    r"|This usually reflects invalid usage of NCCL library\.|A call failed possibly due to a network error or a remote process)"
    # the NCCL call a framework checked, named, with ncclGetErrorString() after it: Horovod's
    # NCCLContext::ErrorCheck (horovod/common/ops/nccl_operations.cc: throw std::logic_error(std::string(op_name)
    # + " failed: " + ncclGetErrorString(nccl_result)), op_name "ncclAllReduce", "ncclCommInitRank", ...):
    # horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed: unhandled cuda error   (horovod/horovod#3618)
    r"|\bnccl[A-Z]\w{1,40} failed: " + NCCL_RESULT_TEXT +
    # Legate's and its libraries' check_nccl (legate core/comm, cuNumeric, legate-sparse, legate-boost:
    # fprintf(stderr, "Internal NCCL failure with error %s in file %s at line %d\n", ncclGetErrorString(error), ...),
    # newer legate "... with error %d (%s) in file ...", then exit(error)):
    # Internal NCCL failure with error internal error in file /autofs/.../legate.core/src/core/comm/comm_nccl.cu at line 85   (nv-legate/cupynumeric#638)
    r"|Internal NCCL failure with error (?:\d+ \()?" + NCCL_RESULT_TEXT +
    # the NCCLCHECK macro of NCCL's user-guide examples, copied by nccl-tests (TEST_NCCLCHECK) and TensorRT-LLM
    # (printf/TLLM_THROW("Failed, NCCL error %s:%d '%s'\n", __FILE__, __LINE__, ncclGetErrorString(r))):
    # RuntimeError: Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/common/opUtils.cpp:125 'unhandled system error (run with NCCL_DEBUG=INFO for details)'   (NVIDIA/TensorRT-LLM#6366)
    # whatever the quotes hold (NCCLCHECK_QUOTE above): TransformerEngine's userbuffers of 1.x printed them empty
    # (userbuffers-host.cpp: printf("Failed, NCCL error %s:%d ''\n", __FILE__, __LINE__ /*,ncclGetErrorString(r)*/)):
    # Failed, NCCL error TransformerEngine_official/transformer_engine/pytorch/csrc/userbuffers/userbuffers-host.cpp:223 ''   (NVIDIA/TransformerEngine#994)
    r"|Failed, NCCL error \S+:\d+ " + NCCLCHECK_QUOTE_ANY +
    # torch.cuda.nccl's own check (torch/csrc/cuda/nccl.cpp throw_nccl_error: "NCCL Error " << status << ": "
    # << ncclGetErrorString(status)), raised by torch.cuda.nccl and the collectives built on it:
    # RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)   (vllm-project/vllm#5828)
    r"|NCCL Error \d+: " + NCCL_RESULT_TEXT +
    # ONNX Runtime's CudaCall (onnxruntime/core/providers/cuda/cuda_call.cc: snprintf(str, 1024, "%s failure %d: %s ; GPU=%d ;
    # hostname=%s ; expr=%s; %s", libName, (int)retCode, CudaErrString(retCode), ...), libName "NCCL" for its ncclResult_t
    # instantiation, CudaErrString ncclGetErrorString's text):
    # 2020-11-24 20:31:45.932376500 [E:onnxruntime:Default, cuda_call.cc:119 CudaCall] NCCL failure 5: invalid usage ; GPU=0 ; hostname=jufranc01 ; expr=ncclCommInitRank(group_comm, worker_group.ranks.size(), nccl_id, worker_group.rank_in_group);   (microsoft/onnxruntime#5918)
    r"|\bNCCL failure \d+: " + NCCL_RESULT_TEXT + r"[^;\n]{0,80} ; GPU=" +
    # PaddlePaddle's enforce (paddle/phi/core/enforce.h build_nvidia_error_msg: "NCCL error(" << nccl_result << "), "
    # << ncclGetErrorString(nccl_result) << ". ", raised as an External error):
    # OSError: (External) NCCL error(2), unhandled system error.   (PaddlePaddle/PaddleDetection#7380)
    r"|\(External\) NCCL error\(\d+\), " + NCCL_RESULT_TEXT +
    # CuPy's NCCL binding (cupy_backends/cuda/libs/nccl.pyx, cupy.cuda.nccl before v8: class NcclError(RuntimeError),
    # '%s: %s' % (ERROR2[status], ncclGetErrorString(status)), ERROR2 = {1: 'NCCL_ERROR_UNHANDLED_CUDA_ERROR', 2:
    # 'NCCL_ERROR_SYSTEM_ERROR', 3: 'NCCL_ERROR_INTERNAL_ERROR', 4: 'NCCL_ERROR_INVALID_ARGUMENT', 5: 'NCCL_ERROR_INVALID_USAGE'}),
    # raised under Ray's collective library, Alpa, Chainer and vLLM before 0.4:
    # cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_UNHANDLED_CUDA_ERROR: unhandled cuda error
    #   (alpa-projects/alpa docs/install.rst, "Unhandled Cuda Error": CUDA, NCCL and driver versions that do not go
    #   together, alpa-projects/alpa#496)
    r"|\bNcclError: NCCL_ERROR_[A-Z_]{3,40}: " + NCCL_RESULT_TEXT +
    # DeepSpeed's logger (deepspeed/utils/logging.py: "[%(asctime)s] [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s] "),
    # its time stripped by facts/lines.py or left out in a paste (EleutherAI/gpt-neox#990):
    # [WARNING] [comm.py:152:init_deepspeed_backend] NCCL backend in DeepSpeed not yet implemented
    r"|^(?:\[(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\] )?" + DS_SOURCE +
    # RCCL's unit-test harness, its child process's check of an NCCL call (RCCL_CHILD_NCCL_CALL below)
    r"|Child process \d{1,4} fails NCCL call \w{1,60} with code \d{1,3}\b"
    # Caffe's and Caffe2's checks of an NCCL call (FRAMEWORK_NCCL_CHECK below)
    r"|Check failed: [^\n]{1,200} == ncclSuccess \(\d{1,3} vs\. 0\)|Check failed: ncclSuccess == [^\n]{1,200} \(0 vs\. \d{1,3}\)"
    r"|\bstatus == ncclSuccess\. \d{1,3} vs 0\.",
    re.M,
)

#: c10d's NCCL result names as getNcclErrorDetailStr starts its lines with them (the detail branch of DETECT)
NCCL_DETAIL_NAMES = ("ncclUnhandledCudaError: ", "ncclSystemError: ", "ncclInternalError: ", "ncclInvalidArgument: ",
                     "ncclInvalidUsage: ", "ncclRemoteError: ")

# Substrings that put a line in front of the specific patterns below; everything else is
# skipped without per-line Python work (str.find is far faster than a regex alternation).
MARKERS = (
    "Watchdog caught", "timed out in blocking wait", "ast enqueued ", "failed (exitcode: ", ") FAILED (exitcode ",
    "Timeout at collective: ", "collective #", "never joined any collectives", "NCCL error", "Last error:",
    *NCCL_DETAIL_NAMES, "Failed to initialize NCCL communicator: ", "DataLoader worker (pid ", "communicator was aborted on rank ", "communicator was aborted after a previous error",
    "Unexpected bus error encountered in worker", "Unexpected BUS error encountered in DataLoader worker", " failed: ", "Internal NCCL failure with error ", "NCCL Error ", "NCCL failure ",
    " terminated with ", "Detected mismatch between collectives on ranks", "NcclError: NCCL_ERROR_", "== ncclSuccess",
    " fails NCCL call ",
)

# torch/csrc/DataLoader.cpp (a worker's SIGCHLD handler; real, ymoslem/OpenNMT-Tutorial#6):
# RuntimeError: DataLoader worker (pid 629) is killed by signal: Killed.
# RuntimeError: DataLoader worker (pid 22358) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.
# the worker's own SIGBUS handler (torch/csrc/DataLoader.cpp, handler_SIGBUS), printed before it dies:
# ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).   (msr-fiddle/pipedream#28)
# PaddlePaddle's DataLoader worker, the same handler (paddle/fluid/imperative/data_loader.cc, REGISTER_SIGNAL_HANDLER(SIGBUS,
# ...): "ERROR: Unexpected BUS error encountered in DataLoader worker. " "This might be caused by insufficient shared memory
# (shm), " "please check whether use_shared_memory is set and storage space " "in /dev/shm is enough\n"), written to stderr
# before it re-raises SIGBUS and dies (PaddlePaddle 2.1.2 in the sample below):
# ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by insufficient shared memory (shm), please check whether use_shared_memory is set and storage space in /dev/shm is enough   (PaddlePaddle/PaddleSpeech#790)
DATALOADER_SHM = re.compile(r"Unexpected (?:bus error encountered in worker|BUS error encountered in DataLoader worker)\. "
                            r"This might be caused by insufficient shared memory \(shm\)")
# the pid redacted as people quote the message ("xxx", "XXX", "..."), the line ending at the signal's name (the hint's
# sentences on lines of their own), as runcomfy.com's LTX-2 /dev/shm page gives it (pt: ltx-2-shm-issue-troubleshooting):
# DataLoader worker (pid XXX) is killed by signal: Bus error
DATALOADER_KILLED = re.compile(r"DataLoader worker \(pid (?P<pid>\d+|[Xx]{2,8}|\.{3}|…)\) is killed by signal: "
                               r"(?P<signal>[A-Za-z][\w -]{0,40}?)(?:\.(?: |$)|[ \t]*$)")

# c10d NCCLUtils (NCCLComm::getNcclComm): "NCCL communicator was aborted on rank " + rank + ". " + (" Original reason
# for failure was: " + reason, from PyTorch 1.10): ProcessGroupNCCL aborted the communicator after a collective timed out
# or failed (on this rank, or on another rank that wrote the abort to the store), and a later call used it.
# NCCL communicator was aborted on rank 0.      (PeterGriffinJin/Search-R1#170)
# torch.distributed.DistBackendError: NCCL communicator was aborted on rank 1.
# torch.distributed.DistBackendError: NCCL communicator was aborted after a previous error      (2.x, NCCLUtils.cpp: no rank)
COMM_ABORTED = re.compile(r"NCCL communicator was aborted on rank (?P<rank>\d+)\b\.?(?:\s+Original reason for failure was: (?P<reason>[^\n](?:[^\n]*?\S)??))?\s*$|NCCL communicator was aborted on rank (?P<rank2>\d+)\b"
                          r"|NCCL communicator was aborted after a previous error")

# torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
#   (torch/distributed/elastic/multiprocessing/errors/__init__.py; its failures table follows, when pasted)
CHILD_FAILED = re.compile(r"\bChildFailedError:?\s*$")

# node17: [rank3]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog ...
# (a host prefix added by `srun ... | sed "s/^/$(hostname): /"`; taken only before a torch prefix)
HOST_PREFIX = re.compile(r"^(?P<host>[A-Za-z][\w.-]*):\s+(?=\[(?:rank|default)\d+\]:|\[[EWIF][ \d]|[EWIF]\d{4} )")

# [rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught ...
GLOBAL_RANK = re.compile(r"\[rank(?P<rank>\d+)\]:")

# ... [Rank 7] Watchdog caught collective operation timeout: WorkNCCL(...
RANK_TAG = re.compile(r"\[Rank (?P<rank>\d+)\]")

# [PG 1 Rank 0] / [PG 0 (default_pg) Rank 7] / [PG ID 0 PG GUID 0(default_pg) Rank 1] / [PG ID 13 PG GUID 143 Rank 0]
# a group named by a hash of its ranks has the SHA-1 digest as its GUID (torch/distributed/distributed_c10d.py
# _process_group_name(ranks, use_hashed_name): hashlib.sha1(...).hexdigest(); else str(_world.group_count)):
# [rank13]:[E804 23:05:54.517045067 ProcessGroupNCCL.cpp:2303] [PG ID 3 PG GUID d03ba143833c6bf31b072ffdb22f1745957fcbfb Rank 1]  failure detected by watchdog at work sequence id: 1438 PG status: last enqueued work: 1441, last completed work: 1437   (PrimeIntellect-ai/prime-rl#3186)
PG_TAG = re.compile(
    r"\[PG (?:ID )?(?P<pg>\d+)(?: PG GUID \w{1,64})?\s*(?:\((?P<name>[^)]*)\))? Rank (?P<rank>\d+)\]"
)

# WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, Timeout(ms)=600000)
WORK_NCCL = re.compile(r"WorkNCCL\((?P<body>(?:[^()\n]|\(ms\))*)\)")

# ... Timeout(ms)=600000) ran for 600061 milliseconds before timing out.
RAN_FOR = re.compile(r"ran for (?P<ms>\S+) milliseconds")

# [PG 0 Rank 3] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last completed NCCL work: 0.
# [PG 1 Rank 0] Exception (either an error or timeout) detected by watchdog at work: 1580, last enqueued NCCL work: 1582, last completed NCCL work: 1579.
# [PG ID 0 PG GUID 0(default_pg) Rank 118]  failure detected by watchdog at work sequence id: 2398459 PG status: last enqueued work: 2398578, last completed work: 2398458
# ... Received a dump signal ... Last enqueued NCCL work: 747, last completed NCCL work: 715.This is ...
PROGRESS = re.compile(
    r"[Ll]ast enqueued (?:NCCL )?work: (?P<enq>[^,\s]+), last completed (?:NCCL )?work: (?P<comp>-?\w+)"
)
AT_WORK = re.compile(r"(?:at (?:NCCL )?work|at work sequence id): (?P<seq>[^,\s]+)")

# Desync report (TORCH_NCCL_DESYNC_DEBUG=1, TraceUtils.h retrieveDesyncReport), our H200 capture:
#	 - [0] Timeout at collective: ALLREDUCE, #4
DESYNC_TIMEOUT_AT = re.compile(r"- \[(?P<rank>\d+)\] Timeout at collective: (?P<op>[^,]+), #(?P<seq>\d+)")
#   - [47] joined but didn't finish collective #41207 (count from 1)
DESYNC_JOINED = re.compile(r"\[(?P<ranks>[\d, ]+)\] joined but didn't finish collective #(?P<seq>\d+)")
#	     [1] finished collective #3, but didn't join collective #4 (count from 1)
DESYNC_FINISHED = re.compile(r"\[(?P<ranks>[\d, ]+)\] finished collective #(?P<seq>\d+), but didn't join")
#  - To our best knowledge, ranks [47] are the lagging ranks that caused this timeout. They never joined any collectives
DESYNC_NEVER = re.compile(r"ranks \[(?P<ranks>[^\]]*)\] are the lagging ranks")

# ProcessGroupWrapper's fingerprint check (TORCH_DISTRIBUTED_DEBUG=DETAIL; torch/csrc/distributed/c10d/ProcessGroupWrapper.cpp
# CollectiveFingerPrint::verify_tensors: "Detected mismatch between collectives on ranks. Rank " << getRank() << " is running
# collective: " << *this << ", but Rank " << rank << " is running collective: " << rank_fingerprint << "."; 1.10-1.12 printed
# only "... Rank N is running inconsistent collective: " << *this; the fingerprint gained "SequenceNumber=N, " (no comma
# before OpType when it holds no tensors) and compute_collective_diff's "Collectives differ in the following aspects: "):
# RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=21, OpType=BROADCAST, TensorShape=[1], ...   (Lightning-AI/pytorch-lightning#19106)
# RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running inconsistent collective: CollectiveFingerPrint(OpType=BROADCAST, TensorShape=[34112], ...   (pytorch/pytorch#78022, 1.11)
# ... Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=1OpType=BARRIER), but Rank 2 is running collective: CollectiveFingerPrint(SequenceNumber=0OpType=BARRIER).Collectives differ in the following aspects: \t Sequence number: 1vs 0   (pytorch/pytorch#148976)
PG_WRAPPER_MISMATCH = re.compile(
    r"Detected mismatch between collectives on ranks\. Rank (?P<rank>\d+) is running (?P<old>inconsistent )?collective: "
    r"(?:CollectiveFingerPrint\()?(?:SequenceNumber=(?P<seq>\d+),? ?)?(?:OpType=)?(?P<op>_?[A-Z][A-Z_]*)?")
# the other rank's fingerprint after the first (searched from the end of PG_WRAPPER_MISMATCH's match)
PG_WRAPPER_PEER = re.compile(
    r", but Rank (?P<rank>\d+) is running collective: (?:CollectiveFingerPrint\()?(?:SequenceNumber=(?P<seq>\d+),? ?)?(?:OpType=)?(?P<op>_?[A-Z][A-Z_]*)?")
# compute_collective_diff's aspects: "\t Sequence number: ", "  Op type: ", "  Tensor Tensor shapes|dtypes|devices: "
PG_WRAPPER_ASPECT = re.compile(r"(?P<aspect>Sequence number|Op type|Tensor Tensor (?:shapes|dtypes|devices)): ")

# ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 218624) of binary: /home/gehao/anaconda3/envs/mlsys/bin/python
# [2024-05-08 08:47:31,877] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) local_rank: 2 (pid: 5939) of binary: ...
# E0325 20:57:27.620000 2606 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 5 (pid: 2630) of binary: ...
# torchrun's agent (1.9-1.10) on a worker that wrote no error file, in a block of asterisks headed "CHILD PROCESS FAILED
# WITH NO ERROR_FILE" (torch/distributed/elastic/multiprocessing/errors/__init__.py _no_error_file_warning_msg:
# f"Child process {failure.pid} (local_rank {rank}) FAILED (exitcode {failure.exitcode})", then "Error msg: ..."):
# Child process 17057 (local_rank 0) FAILED (exitcode 1)      (facebookresearch/MetaICL#8)
NO_ERROR_FILE_CHILD = re.compile(r"Child process (?P<pid>\d{1,10}) \(local_rank (?P<local>\d{1,6})\) FAILED \(exitcode (?P<exit>-?\d{1,4})\)")
ELASTIC_FAILED = re.compile(r"failed \(exitcode: (?P<exit>-?\d+)\) local_rank: (?P<local>\d+) \(pid: (?P<pid>\d+)\)")
# torch.multiprocessing.spawn's join() (mp.spawn, Lightning's ddp_spawn) on a child that died: ProcessExitedException
# from 1.7 ("process %d terminated with signal %s" / "... with exit code %d", torch/multiprocessing/spawn.py), a plain
# Exception with the same text before it:
# torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL   (lyu-yx/ACUMEN#4)
# and on a child that raised, its traceback after the line (ProcessRaisedException from 1.7, a plain Exception
# before: msg = "\n\n-- Process %d terminated with the following error:\n" + original_trace, spawn.py join()):
# -- Process 0 terminated with the following error:      (facebookresearch/detectron2#506, PyTorch 1.3, detectron2's launch())
SPAWN_EXITED = re.compile(r"(?:\bProcessExitedException|^Exception): process (?P<idx>\d+) terminated with"
                          r" (?:signal (?P<sig>SIG[A-Z0-9]+)|exit code (?P<code>-?\d+))"
                          r"|^[ \t]*-- Process (?P<ridx>\d+) terminated with the following error:", re.M)

# torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1
# RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled system error, NCCL version 2.7.8
# RuntimeError: NCCL error in: ... /torch/lib/c10d/ProcessGroupNCCL.cpp:290, unhandled system error
#   (microsoft/AzureML-BERT#34: the reporter shortened the file to "... /path", a blank in it; c10d's form is
#   "NCCL error in: " __FILE__ ":" __LINE__ ", " + the result's text, so a file with blanks is read up to ":<line>,")
# Collective WorkNCCL(SeqNum=2, ...) raised the following async exception: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.25.1
# torch.distributed.DistBackendError: Failed to initialize NCCL communicator: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.27.3
#   (NCCLUtils.cpp, 2.14 of the wheels sampled: the communicator's init returned an ncclResult_t)
# horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed: unhandled cuda error   (horovod/horovod#3618)
# Internal NCCL failure with error internal error in file .../comm_nccl.cu at line 85          (nv-legate/cupynumeric#638)
# RuntimeError: Failed, NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/common/opUtils.cpp:125 'unhandled system error (run with NCCL_DEBUG=INFO for details)'
#   (NCCLCHECK of NCCL's examples, nccl-tests and TensorRT-LLM: NVIDIA/TensorRT-LLM#6366; the text inside the quotes)
# Failed, NCCL error TransformerEngine_official/transformer_engine/pytorch/csrc/userbuffers/userbuffers-host.cpp:223 ''
#   (TransformerEngine's userbuffers, the quotes empty: NVIDIA/TransformerEngine#994; any quote but 'no error', NCCLCHECK_QUOTE)
# RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)
#   (torch/csrc/cuda/nccl.cpp throw_nccl_error, the result's number before its text: vllm-project/vllm#5828)
# ... CudaCall] NCCL failure 5: invalid usage ; GPU=0 ; hostname=jufranc01 ; expr=ncclCommInitRank(group_comm, worker_group.ranks.size(), nccl_id, worker_group.rank_in_group);
#   (ONNX Runtime's CudaCall, the result's number before its text, the device, host and call after " ; ":
#   microsoft/onnxruntime#5918; the message is the result's text, up to the first " ; ")
# OSError: (External) NCCL error(2), unhandled system error.
#   (PaddlePaddle's enforce, its "[Hint: Please search for the error code(2) ...]" line after it: PaddleDetection#7380)
# cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_UNHANDLED_CUDA_ERROR: unhandled cuda error
#   (CuPy's NcclError, ncclResult_t's name then ncclGetErrorString's text: alpa-projects/alpa docs/install.rst)
# "NCCL error:" without "in: <file>:<line>," is followed by ncclGetErrorString()'s text, as the other forms are: not an
# issue's title quoted in an e-mail reply's Subject (xorbitsai/inference#1622, the reply forwarded as a comment):
#   Subject: Re: [xorbitsai/inference] BUG: NCCL error: (Issue #1622)
# Not the raising code a Python traceback quotes under its frame, the message still an f-string's placeholder
# (vLLM's and SGLang's pynccl_wrapper.py NCCL_CHECK, just above the RuntimeError it raises; sgl-project/sglang#8974):
#     raise RuntimeError(f"NCCL error: {error_str}")
#: XLA's abort of a communicator with an asynchronous NCCL error (xla_nccl's line, which NCCL_ERROR's "NCCL error: " matches):
#: 2023-08-25 11:06:39.330561: E external/xla/xla/service/gpu/nccl_utils.cc:191] Aborting communicator: 0x5555a108ff90 due to async NCCL error: remote process exited or there was a network error   (NVIDIA/JAX-Toolbox#194)
XLA_ABORT = " due to async NCCL error: "
NCCL_ERROR = re.compile(r"(?:NCCL error(?: in: (?:\S+?|[^,\n]{1,300}:\d+),|:(?= " + NCCL_RESULT_TEXT + r"))|Failed to initialize NCCL communicator:"
                        r"|Failed, NCCL error \S+:\d+(?= " + NCCLCHECK_QUOTE + r")"
                        r"|NCCL Error \d+:(?= " + NCCL_RESULT_TEXT + r")"
                        r"|\bNCCL failure \d+:(?= " + NCCL_RESULT_TEXT + r"[^;\n]{0,80} ; GPU=)"
                        r"|\(External\) NCCL error\(\d+\),(?= " + NCCL_RESULT_TEXT + r")"
                        r"|\bNcclError: NCCL_ERROR_[A-Z_]{3,40}:(?= " + NCCL_RESULT_TEXT + r")"
                        r"|\bnccl[A-Z]\w{1,40} failed:(?= " + NCCL_RESULT_TEXT + r")"
                        r"|Internal NCCL failure with error(?: \d+)?(?= \(?" + NCCL_RESULT_TEXT + r")) (?P<msg>(?!\{).+)$")

# NCCL 1.x's ncclGetErrorString() texts (NVIDIA/nccl v1.3.4-1 src/core.cu: "unhandled cuda error", "system error",
# "internal error", "invalid device pointer", "invalid rank", ...; 2.x's are NCCL_RESULT_TEXT), which the Caffe
# frameworks of NCCL 1's time print after their check
NCCL1_RESULT_TEXT = (r"(?:unhandled cuda error|system error|internal error|invalid device pointer|invalid rank"
                     r"|unsupported device count|device not found|invalid device index|lib wrapper not initialized"
                     r"|cuda malloc failed|parameter mismatch between ranks|invalid argument|invalid data type"
                     r"|invalid reduction operations)")
# A framework's check that an NCCL call returned ncclSuccess, the result's number and ncclGetErrorString()'s text after:
# Caffe's NCCL_CHECK (BVLC/caffe and NVIDIA/caffe include/caffe/util/nccl.hpp: CHECK_EQ(result, ncclSuccess) << " " <<
# ncclGetErrorString(result); glog's CHECK_EQ prints "Check failed: a == b (va vs. vb) " before what is streamed):
# F1206 07:37:19.964359 10589 parallel.cpp:156] Check failed: result == ncclSuccess (1 vs. 0)  unhandled cuda error   (NVIDIA/caffe#450)
# parallel.cpp:135 Check failed: result == ncclSuccess (5 vs. 0)  invalid rank                   (BVLC/caffe#5580, NCCL 1's 5)
# Caffe2's CAFFE_NCCL_CHECK (caffe2/contrib/nccl/cuda_nccl_gpu.h: CAFFE_ENFORCE_EQ(status, ncclSuccess, " ", "Error at: ",
# __FILE__, __LINE__, ": ", ncclGetErrorString(status)); EnforceNotMet prints "[enforce fail at <file>:<line>] status ==
# ncclSuccess. <a> vs <b>. " then the strings, the file and line run together; its first form, CAFFE_CHECK_EQ, is glog's):
# ... caffe2::EnforceNotMet: [enforce fail at cuda_nccl_gpu.cc:24] status == ncclSuccess. 2 vs 0.  Error at: /root/code/official_caffe2/caffe2/caffe2/contrib/nccl/cuda_nccl_gpu.cc24: system error Error from operator:   (facebookresearch/video-nonlocal-net#14)
# Read only where the text after the check is one of NCCL's result texts (1.x's or 2.x's): what else a framework streams
# after CHECK_EQ ("NCCL Reduce failed!") names no result, and the number alone means other results in NCCL 1 and 2 above 3.
FRAMEWORK_NCCL_CHECK = re.compile(
    r"(?:Check failed: [^\n]{1,200}? == ncclSuccess \((?P<a>\d{1,3}) vs\. 0\)|\bstatus == ncclSuccess\. (?P<b>\d{1,3}) vs 0\.)"
    r"[ \t]+(?:Error at: [^\n]{1,300}?\d: ?)?(?P<msg>(?:" + NCCL_RESULT_TEXT + "|" + NCCL1_RESULT_TEXT + r")\b[^\n]{0,300})")

# The same check with nothing streamed after it (Paddle's PADDLE_ENFORCE of its dynload'ed NCCL calls, glog's CHECK_EQ):
# F1125 15:44:39.266677 200102 nccl_helper.h:62] Check failed: dynload::ncclGroupEnd() == ncclSuccess (1 vs. 0)   (PaddlePaddle/Paddle#14620)
# The number alone is read only where it means one result in NCCL 1 and 2 alike (src/core.cu's and nccl.h's ncclResult_t:
# 1 ncclUnhandledCudaError, 2 ncclSystemError, 3 ncclInternalError; above 3 the two releases number differently).
FRAMEWORK_NCCL_CHECK_BARE = re.compile(
    r"Check failed: (?:[^\n]{1,200}? == ncclSuccess \((?P<a>[123]) vs\. 0\)|ncclSuccess == [^\n]{1,200}? \(0 vs\. (?P<b>[123])\))[ \t]*$")
#: ncclResult_t 1-3, the same in NCCL 1 and 2
NCCL_RESULT_BY_NUMBER = {1: "ncclUnhandledCudaError", 2: "ncclSystemError", 3: "ncclInternalError"}

# RCCL's unit-test harness (ROCm/rccl test/common/ProcessIsolatedTestRunner and TestBedChild: CHILD_NCCL_CALL checks
# each NCCL call a test's child process makes, ERROR("Child process %d fails NCCL call %s with code %d\n", childId, msg,
# status), later TEST_ERROR(...) without the newline; the code is the call's ncclResult_t), its "[ ERROR    ] " tag
# before it, a terminal's colour codes around the tag in some pastes:
# [ ERROR    ] Child process 0 fails NCCL call ncclGroupEnd with code 1      (ROCm/rccl#1370, four MI100 unit tests)
# The harness's lines after it ("Child 0 failed on command [INIT_COMMS]:", "Child 0 reports failure", GoogleTest's
# "TestBed.cpp:183: Failure" and "[  FAILED  ] AllReduce.OutOfPlace") report the same failed call, test by test.
# RCCL is NCCL 2: the code is NCCL 2's ncclResult_t (src/nccl.h.in), 1 to 6 the errors knowledge/nccl_results.yaml lists.
RCCL_CHILD_NCCL_CALL = re.compile(r"Child process (?P<child>\d{1,4}) fails NCCL call (?P<call>\w{1,60}) with code (?P<code>[1-6])\b")
#: NCCL 2's ncclResult_t errors by number (src/nccl.h.in)
NCCL2_RESULT_BY_NUMBER = {**NCCL_RESULT_BY_NUMBER, 4: "ncclInvalidArgument", 5: "ncclInvalidUsage", 6: "ncclRemoteError"}

# c10d's ncclGetErrorWithVersion (NCCLUtils.cpp): ncclGetErrorString(error) + ", NCCL version " +
# getNcclVersion(): the library torch loaded, "<major>.<minor>.<patch>", or "Unknown NCCL version"
# (not a version: no match). Samples above.
NCCL_ERROR_VERSION = re.compile(r", NCCL version (?P<version>\d+\.\d+\.\d+)\b")



def torch_nccl_version(text: str) -> str:
    """The NCCL release of getNcclVersion()'s "<major>.<minor>.<patch>". Before PyTorch knew NCCL's version code had
    changed at 2.9 (major*10000 + minor*100 + patch, NCCL_VERSION_CODE; major*1000 + ... before: nccl.h.in) it decoded
    every code as the old one (version / 1000, version % 1000 / 100, the rest), so NCCL 2.10.3's 21003 printed as
    "21.0.3" (RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:957, unhandled cuda
    error, NCCL version 21.0.3: NVIDIA/nccl#1068, PyTorch 1.10). No NCCL release has a major of 10 or more, so such a
    triple is re-encoded the old way and read as the new code: "21.0.3" -> "2.10.3", "20.9.9" -> "2.9.9".

    >>> torch_nccl_version("21.0.3"), torch_nccl_version("21.1.4"), torch_nccl_version("2.18.1")
    ('2.10.3', '2.11.4', '2.18.1')
    """
    major, minor, patch = (int(p) for p in text.split("."))
    if major < 10:
        return text
    code = major * 1000 + minor * 100 + patch
    return f"{code // 10000}.{code // 100 % 100}.{code % 100}"

# What follows NCCL's "Last error:" when NCCL kept no message: c10d's getNcclErrorDetailStr (NCCLUtils.cpp, 1.13-2.3)
# appends "\nLast error:\n" + ncclGetLastError(NULL), an empty string then, so the next line is what c10::Error
# prints after its message (c10/util/Exception.cpp: "Exception raised from " << source_location << " (most recent call
# first):"), a frame of that backtrace or 2.6+'s "C++ CapturedTraceback:" header (pytorch/pytorch#142356, 2.5 + NCCL 2.21.5):
# Last error:
# Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):
# (2.4+ print "\nLast error: Unknown NCCL Error\n" on one line instead when ncclGetLastError returns NULL: not joined.)
NO_LAST_ERROR = re.compile(r"Exception raised from \S+ at \S+ \(most recent call first\):|frame #\d+: |C\+\+ CapturedTraceback:")

# ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
# ncclUnhandledCudaError: Call to CUDA function failed.
NCCL_DETAIL = re.compile(r"(?:^|\s)(?P<name>nccl(?:UnhandledCuda|System|Internal|InvalidArgument|InvalidUsage|Remote)Error): (?P<msg>.*)$")

# ncclGetErrorString() in NVIDIA/nccl src/init.cc; older releases print the first words only
_NCCL_RESULT = (
    ("unhandled cuda error", "ncclUnhandledCudaError"),
    ("unhandled system error", "ncclSystemError"),
    ("internal error", "ncclInternalError"),
    ("invalid argument", "ncclInvalidArgument"),
    ("invalid usage", "ncclInvalidUsage"),
    ("remote process exited or there was a network error", "ncclRemoteError"),
    # NCCL 1.x's text of ncclSystemError (code 2 in 1.x and 2.x: src/core.cu), as Caffe2 prints it
    ("system error", "ncclSystemError"),
)

# W1129 18:30:26.245000 1668 torch/distributed/run.py:851] *****************************************
GLOG_TORCH = re.compile(r"^[IWEF]\d{4} [\d:.]+ +\d+ \S*torch/\S+:\d+\] ", re.M)

# torchrun's failures table (torch.distributed.elastic.multiprocessing.errors.ChildFailedError):
# [1]:
#   time      : 2023-06-14_22:36:10
#   host      : neptun.informatik.uni-kl.de
#   rank      : 1 (local_rank: 1)
#   exitcode  : -6 (pid: 2385923)
#   error_file: <N/A>
#   traceback : Signal 6 (SIGABRT) received by PID 2385923
FAILURE_ENTRY = re.compile(r"^(?P<pre>[^\n\[]*)\[(?P<idx>\d+)\]:[ \t]*\r?$", re.M)
FAILURE_FIELD = re.compile(r"^\s*(?P<key>time|host|rank|exitcode|error_file|traceback)\s*:\s*(?P<val>(?:.*\S)?)\s*$")
TABLE_RANK = re.compile(r"^(?P<rank>-?\d+) \(local_rank: (?P<local>-?\d+)\)$")
#   exitcode  : -6 (pid: 2385923)
#   exitcode  : -11 (pid: 3304209)  (SIGSEGV)      (torch 2.x: _FAILURE_FORMAT_TEMPLATE "${exitcode} (pid: ${pid}) ${signal_name}",
#                                                    signal_name " (SIGSEGV)" for a worker a signal ended)
#   exitcode  : 1                                  (hpcaitech/ColossalAI#3582: a record pasted without its pid)
TABLE_EXIT = re.compile(r"^(?P<exit>-?\d+)(?: \(pid: (?P<pid>\d+)\))?(?:[ \t]+\((?P<sig>SIG[A-Z0-9]{2,8})\))?$")
# traceback : Signal 6 (SIGABRT) received by PID 2385923
TABLE_SIGNAL = re.compile(r"Signal \d+ \((?P<sig>SIG\w+)\)")
#   rank      : 0 (local_rank: 0)
#   (NVIDIA/Megatron-LM#1880: a record of the table pasted from its "time" field on, without its "[0]:" line)
#   the rank field of an entry, to find the records whose "[N]:" line the paste left out
TABLE_RANK_FIELD = re.compile(r"^[ \t]*rank[ \t]*:[ \t]*-?\d+ \(local_rank: -?\d+\)[ \t]*\r?$", re.M)
# A record of the table whose seven lines a log console joined into one, the line breaks and the column
# padding each become one blank (AWS CloudWatch as SageMaker shows a job's log; Lightning-AI/litData#340):
#   | 2024-08-23T22:22:58.879Z | [2]: time : 2024-08-23_22:22:58 host : algo-2 rank : 2 (local_rank: 2) exitcode : -6 (pid: 189) error_file: <N/A> traceback : Signal 6 (SIGABRT) received by PID 189
FLAT_RECORD = re.compile(
    r"\[(?P<idx>\d{1,6})\]:[ \t]+time[ \t]*:[ \t]*(?P<time>\S{1,40})[ \t]+host[ \t]*:[ \t]*(?P<host>\S{1,253})"
    r"[ \t]+rank[ \t]*:[ \t]*(?P<rank>-?\d{1,9}) \(local_rank: (?P<local>-?\d{1,9})\)"
    r"[ \t]+exitcode[ \t]*:[ \t]*(?P<exit>-?\d{1,4})(?: \(pid: (?P<pid>\d{1,10})\))?(?:[ \t]+\((?P<sig>SIG[A-Z0-9]{2,8})\))?"
    r"(?:[ \t]+error_file[ \t]*:[ \t]*\S{1,500})?(?:[ \t]+traceback[ \t]*:[ \t]*(?P<tb>[^\n]{0,300}))?")


# ... in broadcast 10: work = default_pg.broadcast([tensor], opts) 10: torch.distributed.DistBackendError: NCCL error in: ...
# (srun -l labels of a traceback pasted flattened onto one line; the label at the start is stripped before parsing)
SRUN_LABEL = re.compile(r"(?:^|\s)(?P<label>\d{1,5}): (?=\S)")


def segments(line: str) -> list[str]:
    """The parts of a line that a paste flattened: split at ``srun -l`` labels (``10: ``) when the
    same label occurs at least twice; else the line itself."""
    if ": " not in line:
        return [line]
    labels = [m for m in SRUN_LABEL.finditer(line)]
    if len(labels) < 2 or len({m["label"] for m in labels}) != 1:
        return [line]
    out, pos = [], 0
    for m in labels:
        out.append(line[pos:m.start()].strip())
        pos = m.end()
    out.append(line[pos:].strip())
    return [p for p in out if p]


@lru_cache(maxsize=32)
def _marker_set(markers: tuple[str, ...]) -> Any:
    """One RE2 set of ``markers`` as literals: which of them a text holds, in one pass."""
    rset = re2.Set.SearchSet(re2.Options())
    for lit in markers:
        rset.Add(re.escape(lit))
    rset.Compile()
    return rset


def present(text: str, markers: tuple[str, ...]) -> tuple[str, ...]:
    """The ``markers`` that occur in ``text``, found in one RE2 pass over it (a str.find of each of a
    reader's 65 markers over a 7 kB train log cost 0.13 ms; over a 175 kB log, ~6 ms); all of them
    for a text RE2 cannot take (lone surrogates: not UTF-8)."""
    try:
        hit = _marker_set(markers).Match(text)
    except UnicodeEncodeError:
        return markers
    return tuple(markers[i] for i in sorted(hit)) if hit else ()


def marked_lines(artefact: Artefact, markers: tuple[str, ...]) -> Iterator[tuple[int, str, int, int]]:
    """(1-based line, line, offsets of its start and end) for each line holding one of
    ``markers``, in file order; lines end at '\\n' only, as in :meth:`Artefact.line_of`."""
    text = artefact.text
    spans: dict[int, int] = {}
    if len(markers) > 4:  # only those it holds looked for (a few str.find cost less than the set's pass)
        markers = present(text, markers)
    for lit in markers:
        pos = text.find(lit)
        while pos != -1:
            start = text.rfind("\n", 0, pos) + 1
            end = text.find("\n", pos)
            end = len(text) if end == -1 else end
            spans[start] = end
            pos = text.find(lit, end)
    for start in sorted(spans):
        end = spans[start]
        yield artefact.line_of(start), text[start:end].rstrip("\r"), start, end


# A terminal's copy cuts a long line at the terminal's width and the paste keeps the cut, anywhere in
# the line (inside a word or a number); the rest starts the next line with no prefix of its own:
# [rank6]:[E207 01:29:36.730311765 ProcessGroupNCCL.cpp:616] [Rank 6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, Nume
# lOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out.                        (sgl-project/sglang#3368)
# [rank2]:[E210 02:06:33.394775308 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 2] Process group watchdog thread terminated with exception: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(S
# eqNum=1522789, OpType=_ALLGATHER_BASE, NumelIn=298960, NumelOut=4783360, Timeout(ms)=600000) ran for 600094 milliseconds before timing out.   (sgl-project/sglang#3424)
# [rank4]:[E304 12:54:52.123659968 ProcessGroupNCCL.cpp:1785] [PG ID 2 PG GUID 3 Rank 4] Exception (either an error or timeout) detected by watchdog at work: 151721, last enqueued NCCL wor
# k: 151721, last completed NCCL work: 151720.                                                      (sgl-project/sglang#3932)
# A message whose own end is missing from its line (ProcessGroupNCCL's "WorkNCCL(...)" without its ")", the
# watchdog's "ran for <ms> milliseconds before timing out." or the progress "last enqueued ..., last completed
# ...: <n>" unread) takes the next lines as its continuation, joined as cut (nothing between), when the
# join completes it and those lines start no record of their own.
# A person, a chat or a mail client wraps the same message at a blank instead (word wrap): the line
# stops at the end of a word, at the watchdog's "timeout:" or inside WorkNCCL(...)'s argument list, and
# the rest follows on the next lines, indented or not (vllm-project/vllm#42354, hand-wrapped):
# [Rank 1] Watchdog caught collective operation timeout:
# WorkNCCL(SeqNum=12590, OpType=_ALLGATHER_BASE, NumelIn=1404928, NumelOut=2809856,
#          Timeout(ms)=600000) ran for 600060 milliseconds before timing out.
# Such a continuation (the line before it ends at a blank, a ':' or a ','; or it is indented, which only
# an argument list left open allows) is joined with one blank, as the message had it.
_WRAP_MAX = 2  # continuation lines (a very long line cut twice)
_CUT_BLANKS = 4  # rows a terminal's cut, joined by facts/lines.py, left blank between a line and its continuation
# a line that starts a record: a bracketed label or stamp, a glog/c10 header, a date, a traceback or frame line
_RECORD_START = re.compile(r"[\[(<{\s]|[IWEF]\d{4} |\d{4}-\d\d-\d\d|Exception raised |frame #|Traceback |terminate called ")
# the watchdog's message whose WorkNCCL(...) went to the next line
_WATCHDOG_HEAD = "Watchdog caught collective operation timeout:"


def _incomplete(line: str) -> bool:
    if "WorkNCCL(" in line:
        if WORK_NCCL.search(line) is None:
            return True
        return "Watchdog caught" in line and "milliseconds before timing out" not in line
    if line.rstrip().endswith(_WATCHDOG_HEAD):
        return True
    # cut inside the watchdog's head itself, the rest of its words on the next line (huggingface/nanotron#204):
    # [default2]:[E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught
    # collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600888 milliseconds before timing out.
    at = line.rfind("Watchdog")
    if at >= 0 and _WATCHDOG_HEAD.startswith(tail := line[at:].rstrip()) and len(tail) < len(_WATCHDOG_HEAD):
        return True
    return "ast enqueued " in line and PROGRESS.search(line) is None


def _open_args(line: str) -> bool:
    """WorkNCCL(...)'s argument list is open at the end of ``line`` (its ')' is on a later line)."""
    at = line.rfind("WorkNCCL(")
    return at >= 0 and WORK_NCCL.search(line, at) is None


def _join(joined: str, cont: str) -> str | None:
    """``joined`` continued by the next line ``cont``: as cut (a terminal's copy), or with one blank
    (a word wrap); None when ``cont`` starts a record of its own."""
    if cont[:1].isspace():  # indented: only an open argument list continues on such a line
        return joined.rstrip() + " " + cont.lstrip() if _open_args(joined) and cont.strip() else None
    if _RECORD_START.match(cont):
        return None
    if joined[-1:].isspace() or joined.rstrip().endswith((":", ",")):  # cut at a blank: a word wrap
        return joined.rstrip() + " " + cont
    return joined + cont


def unwrap(text: str, line: str, end: int) -> tuple[str, int, int]:
    """``line`` (ending at offset ``end`` of ``text``) joined with the continuation lines a
    terminal's cut left below it: (the joined line, the offset where it now ends, the number of
    lines joined). The line comes back as it is when it is complete or no join completes it."""
    if not _incomplete(line):
        return line, end, 0
    joined, stop, rows = line, end, 0
    # (a text facts/lines.py joined a terminal's cut in: the rows after a joined line are left blank, and a
    # message whose next line was cut goes on below them: "NumelOut=2809856," cut at 80 before its indented
    # "         Timeout(ms)=600000) ran for ...", harvest 3104 copied 80 columns wide)
    blanks = _CUT_BLANKS if getattr(text, "joined", None) else 0
    for _ in range(_WRAP_MAX):
        if stop >= len(text):
            break
        stop, passed = _past_cut_blanks(text, stop, blanks)
        blanks, rows = blanks - passed, rows + passed
        cont = next_line(text, stop).rstrip("\r")
        nxt = _join(joined, cont) if cont else None
        if nxt is None:
            break
        joined, stop, rows = nxt, stop + 1 + len(next_line(text, stop)), rows + 1
        if not _incomplete(joined):
            return joined, stop, rows
    return line, end, 0


def next_row(text: str, end: int) -> tuple[str, int]:
    """The line after the one ending at ``end``, past the rows a terminal's cut left blank where
    facts/lines.py joined it (``text`` one it joined lines in, up to _CUT_BLANKS rows), and how many
    rows were passed: a message's next line is read there, as in :func:`unwrap`."""
    first = next_line(text, end)
    if not getattr(text, "joined", None):
        return first, 0
    end, skipped = _past_cut_blanks(text, end, _CUT_BLANKS)
    nxt = next_line(text, end)
    if not nxt.strip():  # blank rows only: the line after is blank, as read
        return first, 0
    return nxt, skipped


def _past_cut_blanks(text: str, end: int, budget: int) -> tuple[int, int]:
    """Past the blank rows (at most ``budget``) after the line ending at ``end``: the end of the
    last one passed, and how many (unwrap and next_row read a message's next line there)."""
    passed = 0
    while passed < budget and end < len(text) and not (row := next_line(text, end)).strip("\r"):
        end, passed = end + 1 + len(row), passed + 1
    return end, passed


def prev_line(text: str, start: int) -> str:
    """The line before the one starting at ``start``."""
    if start == 0:
        return ""
    return text[text.rfind("\n", 0, start - 1) + 1:start - 1]


def next_line(text: str, end: int) -> str:
    """The line after the one ending at ``end``."""
    if end >= len(text):
        return ""
    stop = text.find("\n", end + 1)
    return text[end + 1:] if stop == -1 else text[end + 1:stop]


def line_context(artefact: Artefact, line: str, no: int | None = None) -> tuple[str, int | None]:
    """The node of a line (host prefix, else the artefact's) and its ``[rankN]:`` global rank
    (``no``: the line's number, to read a rank label the normaliser took off, facts/lines.py)."""
    h = HOST_PREFIX.match(line)
    node = artefact.node_for(h["host"]) if h else artefact.node
    return node, global_rank(artefact, line, no)


def global_rank(artefact: Artefact, line: str, no: int | None) -> int | None:
    """The ``[rankN]:`` global rank of a line, in the line or in the label it was read without."""
    g = GLOBAL_RANK.search(line)
    if g:
        return int(g["rank"])
    return label_rank(artefact.raw_line(no)) if no and artefact.raw_text is not None else None


def short_host(host: str | None) -> str | None:
    """torchrun prints socket.getfqdn(); NCCL and syslog print the name up to the first dot."""
    if not host or host.startswith("<"):
        return None
    if re.fullmatch(r"[\d.]+", host):
        return host
    return host.split(".", 1)[0]


def nccl_error_name(message: str) -> str | None:
    low = message.lower().lstrip("(")  # legate's "with error 3 (internal error ...)"
    for text, name in _NCCL_RESULT:
        if low.startswith(text):
            return name
    return None


def signal_of(exitcode: int | None, traceback: str | None) -> str | None:
    """SIGABRT from "Signal 6 (SIGABRT) received by PID", else from a negative exit code."""
    if traceback:
        m = TABLE_SIGNAL.search(traceback)
        if m:
            return m["sig"]
    if exitcode is not None and exitcode < 0:
        try:
            return _signal.Signals(-exitcode).name
        except ValueError:
            return None
    return None


def _entries(text: str, lines: list[str], line_of) -> Iterator[tuple[int, int, str, int]]:
    """(line of the entry's "[N]:" or of its first field, offset, prefix, first field's index) of each
    record of the failures table; a record whose "[N]:" line the paste left out starts at its first field."""
    for m in FAILURE_ENTRY.finditer(text):
        no = line_of(m.start())
        yield no, m.start(), m["pre"], no
    for m in TABLE_RANK_FIELD.finditer(text):
        i = line_of(m.start()) - 1  # the rank field's index; back to the record's first field
        while i > 0 and FAILURE_FIELD.match(lines[i - 1].rstrip("\r")):
            i -= 1
        if i == 0 or FAILURE_ENTRY.match(lines[i - 1]) is None:
            yield i + 1, m.start(), "", i


def failure_table(artefact: Artefact, b: FactBuilder, used: set[int]) -> Iterator[dict[str, Any]]:
    """One record per ``[N]:`` entry of torchrun's failures table (or per record pasted without that line, or
    per record a log console joined onto one line: FLAT_RECORD)."""
    text = artefact.text
    if "local_rank:" not in text:
        return
    lines = text.split("\n")
    for no, start, pre, first in _entries(text, lines, artefact.line_of):
        fields: dict[str, tuple[int, str]] = {}
        for i in range(first, min(first + 7, len(lines))):
            f = FAILURE_FIELD.match(lines[i][len(pre):].rstrip("\r"))
            if f is None or f["key"] in fields:
                break
            fields[f["key"]] = (i + 1, f["val"])
        if "rank" not in fields or "exitcode" not in fields:
            continue
        used.add(no)
        used.update(ln for ln, _ in fields.values())
        r = TABLE_RANK.match(fields["rank"][1])
        e = TABLE_EXIT.match(fields["exitcode"][1])
        if r is None or e is None:
            bad = fields["rank"][0] if r is None else fields["exitcode"][0]
            b.error(bad, "failures table entry with an unreadable rank or exitcode")
            continue
        host = short_host(fields.get("host", (0, ""))[1])
        root_cause = text.rfind("Root Cause", 0, start) > text.rfind("Failures:", 0, start)
        exitcode = int(e["exit"])
        ev_line = fields["exitcode"][0]
        yield dict(line=ev_line, text=lines[ev_line - 1].rstrip("\r"), node=artefact.node_for(host),
                   local_rank=int(r["local"]), rank=int(r["rank"]), pid=int(e["pid"]) if e["pid"] else None,
                   exitcode=exitcode, signal=e["sig"] or signal_of(exitcode, fields.get("traceback", (0, ""))[1]),
                   root_cause=root_cause, from_table=True)
    if "]: time" not in text and "]:\ttime" not in text:
        return
    start = 0
    for no, line in enumerate(lines, 1):
        m = FLAT_RECORD.search(line) if "(local_rank: " in line else None
        if m is not None and no not in used:
            used.add(no)
            exitcode = int(m["exit"])
            yield dict(line=no, text=line.rstrip("\r"), node=artefact.node_for(short_host(m["host"])),
                       local_rank=int(m["local"]), rank=int(m["rank"]), pid=int(m["pid"]) if m["pid"] else None,
                       exitcode=exitcode, signal=m["sig"] or signal_of(exitcode, m["tb"] or ""),
                       root_cause=text.rfind("Root Cause", 0, start) > text.rfind("Failures:", 0, start), from_table=True)
        start += len(line) + 1


def glog_torch_lines(artefact: Artefact) -> Iterator[tuple[int, re.Match[str]]]:
    """GLOG_TORCH's matches, as its finditer gives them: each lies in one line, from its start, and
    holds "torch/", so only the lines holding it are tried (the regex alone is tried at every
    character: ~20 us of a 6 kB train log whose 4 glog lines it finds)."""
    match = GLOG_TORCH.match
    for no, _line, start, _end in marked_lines(artefact, ("torch/",)):
        if (m := match(artefact.text, start)) is not None:
            yield no, m

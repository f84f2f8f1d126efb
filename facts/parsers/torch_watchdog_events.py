"""What ProcessGroupNCCL's watchdog and its heartbeat monitor say besides the timeout itself (read by :mod:`torch_log`).

Not a parser: :func:`read` turns one line into the fields of a ``torch_watchdog_event`` fact.
A job that failed in a collective prints these around (or instead of) the ``Watchdog caught
collective operation timeout`` line; pasted alone, each still says that the watchdog found a
collective failed or timed out, or that the watchdog itself hung. Strings from
torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (torch/lib/c10d before 1.9); the releases
printing each (of the wheels sampled: 1.8, 1.10, 1.12, 1.13, 2.0, 2.1, 2.2, 2.4, 2.6, 2.8, 2.10,
2.11, 2.14) are in bench/message_forms_versions.json. Sample lines (real, from the public
threads named; the versions are the wheels' that hold the string)::

    [E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.   (1.8 ... 2.14)
    [E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.   (1.13 ... 2.14)
    [80748] [rank0]:[E321 02:07:08.465150152 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception (either an error or timeout) detected by watchdog at work: 1580, last enqueued NCCL work: 1582, last completed NCCL work: 1579.   (hiyouga/LlamaFactory#7396, 2.4)
    [rank6]:[E429 13:55:49.384372190 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 6] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. ...   (modelscope/ms-swift#7992, verl-project/verl#1158)
    [rank6]:[F429 14:03:49.385461578 ProcessGroupNCCL.cpp:1554] [PG ID 0 PG GUID 0(default_pg) Rank 6] [PG ID 0 PG GUID 0(default_pg) Rank 6] Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.
    [rank3]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 3] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1   (2.4, pytorch/pytorch#116268's wording)
    [rank368]:[E808 04:21:41.161045406 ProcessGroupNCCL.cpp:2147] [PG ID 0 PG GUID 0(default_pg) Rank 368] First PG on this rank to signal dumping.   (NVIDIA/dgxc-benchmarking grok1/README.md, 2.6+)

The sequence numbers of the progress lines (``last enqueued NCCL work``) are
``torch_nccl_progress``'s; this fact keeps what the line means.
"""
from __future__ import annotations

import re
from typing import Any

from stethoscope.facts.kinds.app import (  # noqa: F401 - the fact classes live in facts/kinds
    Event, TorchWatchdogEvent,
)

# (literal that gates the line, event, pattern with its optional numbers), each with its line:
FORMS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    # [rank3]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 3] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last completed NCCL work: 0.
    ("Timeout at NCCL work: ", "timeout_at_work", re.compile(r"Timeout at NCCL work: (?P<seq>\d+)")),
    # c10::Error's backtrace of the timeout WorkNCCL::checkTimeout() builds (C10_BUILD_ERROR(DistBackendError, "...Watchdog
    # caught collective operation timeout: ..."), 2.1 on; the only c10::Error built there), pasted without its message:
    # Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:632 (most recent call first):   (huggingface/open-r1#620)
    # frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x2b4 (0x
    #   (frame #0 is c10::Error's constructor: #1 built the error; a deeper checkTimeout frame only passed through)
    ("checkTimeout", "timeout_at_work",
     re.compile(r"Exception raised from checkTimeout at \S*ProcessGroupNCCL\.cpp:\d+|frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout\(")),
    # ... [PG 1 Rank 0] Exception (either an error or timeout) detected by watchdog at work: 1580, last enqueued NCCL work: 1582, ...
    ("detected by watchdog at work", "failure_at_work",
     re.compile(r"Exception \(either an error or timeout\) detected by watchdog at work: (?P<seq>\d+)")),
    # ... [PG ID 0 PG GUID 0(default_pg) Rank 118]  failure detected by watchdog at work sequence id: 2398459 PG status: ...
    ("failure detected by watchdog at work sequence id", "failure_at_work",
     re.compile(r"failure detected by watchdog at work sequence id: (?P<seq>\d+)")),
    # ... Received a dump signal due to a collective timeout from  rank 0 and we will try our best to dump the debug info. ...
    # [rank0]:[E1213 17:24:49.328237228 ProcessGroupNCCL.cpp:1858] [PG ID 0 PG GUID 0(default_pg) Rank 0] Received a dump signal due to a
    #   collective timeout from this local rank and we will try our best to dump the debug info. ...   (2.6: fixtures/artefacts/torch_log/watchdog_torch26_failure_detected.log)
    # ... Received a dump signal from this local rank and will start to dump the debug info. ...
    # ... Observed flight recorder dump signal from another rank via TCPStore.
    ("dump signal", "dump_signal",
     re.compile(r"Received a dump signal (?:due to a collective timeout from\s+(?:rank (?P<from>\d+)|this local rank)|from )"
                r"|Observed flight recorder dump signal from another rank")),
    # the heartbeat monitor of 2.2-2.3 told to dump, by this rank's own timeout or another rank's (ProcessGroupNCCL.cpp
    # heartbeatMonitor: logPrefix() + "Received a timeout signal from this local rank and will start to dump the debug info. "
    # "Last enqueued NCCL work: " N ", last completed NCCL work: " M "."; "Received a global timeout from another rank and
    # will start to dump the debug info." + the same); the watchdog of 2.6+ that signals the others to dump:
    # [PG 0 Rank 0] Received a timeout signal from this local rank and will start to dump the debug info. Last enqueued NCCL work: 2, last completed NCCL work: 1.
    # [rank368]:[E808 04:21:41.161045406 ProcessGroupNCCL.cpp:2147] [PG ID 0 PG GUID 0(default_pg) Rank 368] First PG on this rank to signal dumping.   (NVIDIA/dgxc-benchmarking grok1/README.md)
    ("and will start to dump the debug info", "dump_signal",
     re.compile(r"Received a (?:timeout signal from this local rank|global timeout from another rank) and will start to dump the debug info")),
    ("First PG on this rank to signal dumping", "dump_signal", re.compile(r"First PG on this rank to signal dumping\.")),
    # the watchdog looking up the flight recorder's entry of the collective that failed (2.5+), printed beside the failure:
    # [rank368]:[E808 04:21:41.161011710 ProcessGroupNCCL.cpp:693] Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.   (NVIDIA/dgxc-benchmarking grok1/README.md)
    # and where the recorder has it, the collective's call-time stack after it (WorkNCCL::printTraceback, 2.6+:
    # LOG(ERROR) << "Stack trace of the failed collective: \n" << tracebackStr; frames "#0 broadcast from .../distributed_c10d.py:2968"):
    # [rank3[]:[E508 07:35:59.440171617 ProcessGroupNCCL.cpp:733] Stack trace of the failed collective:    (vllm-project/vllm#41160)
    ("Stack trace of the failed collective", "failure_at_work",
     re.compile(r"Stack trace of the failed collective(?: not found| is|:)")),
    # [E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, ...
    ("Some NCCL operations have failed or timed out", "failed_ops",
     re.compile(r"Some NCCL operations have failed or timed out\. Due to the asynchronous nature of CUDA kernels")),
    # [E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.
    ("taking the entire process down", "process_down",
     re.compile(r"To avoid data inconsistency, we are taking the entire process down\.")),
    # [rank3]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 3] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1
    ("Heartbeat monitor timed out", "heartbeat_timeout", re.compile(r"Heartbeat monitor timed out! Process will be terminated")),
    # [E ProcessGroupNCCL.cpp:1177] [Rank 3] monitoring thread detects no heartbeat and will finally kill the process!   (2.2)
    ("detects no heartbeat", "heartbeat_timeout",
     re.compile(r"monitoring thread detects no heartbeat and will finally kill the process")),
    # ... [PG 0 Rank 3] First PG on this rank that detected no heartbeat of its watchdog.   (2.4)
    ("detected no heartbeat of its watchdog", "heartbeat_timeout",
     re.compile(r"First PG on this rank that detected no heartbeat of its watchdog")),
    # ... ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. ...
    ("watchdog got stuck for ", "watchdog_stuck",
     re.compile(r"ProcessGroupNCCL's watchdog got stuck for (?P<stuck>\d+) seconds without making progress")),
    # the abort of the group's NCCL communicators (ncclCommAbort, run by abort(), shutdown() and destroy_process_group)
    # not done within the group's timeout (ProcessGroupNCCL.cpp waitForFutureOrTimeout: logPrefix() + "Future for " +
    # futDescription + " timed out after " + ms + " ms", futDescription "ProcessGroup abort", 2.3+):
    # [rank0]:[E ProcessGroupNCCL.cpp:1025] [PG 0 Rank 0] Future for ProcessGroup abort timed out after 600000 ms   (mit-han-lab/distrifuser#6)
    ("Future for ProcessGroup abort timed out", "abort_timeout",
     re.compile(r"Future for ProcessGroup abort timed out after \d{1,12} ms")),
    # ... Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.
    ("due to ProcessGroupNCCL watchdog hang", "watchdog_hang_exit",
     re.compile(r"Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang")),
)

#: literals that put a line in front of :func:`read` (torch_log's marked lines)
MARKERS = tuple(lit for lit, _e, _p in FORMS)

# [PG 1 Rank 0] / [PG 0 (default_pg) Rank 7] / [PG ID 0 PG GUID 0(default_pg) Rank 1] / [Rank 3]
# [PG ID 3 PG GUID d03ba143833c6bf31b072ffdb22f1745957fcbfb Rank 1]  failure detected by watchdog at work sequence id: 1438 ...   (a group
#   named by the SHA-1 of its ranks, torch distributed_c10d.py _process_group_name; PrimeIntellect-ai/prime-rl#3186)
_TAG = re.compile(r"\[(?:PG (?:ID )?(?P<pg>\d+)(?: PG GUID \w{1,64})?\s*(?:\([^)]*\))? )?Rank (?P<rank>\d+)\]")


def read(line: str) -> dict[str, Any] | None:
    """The ``torch_watchdog_event`` fields of ``line``, or None."""
    for lit, event, pattern in FORMS:
        if lit not in line:
            continue
        m = pattern.search(line)
        if m is None:
            continue
        d = m.groupdict()
        tag = _TAG.search(line, 0, m.start())
        return dict(event=event, rank=int(tag["rank"]) if tag else None, pg=tag["pg"] if tag else None,
                    work_seq=int(d["seq"]) if d.get("seq") else None,
                    stuck_s=int(d["stuck"]) if d.get("stuck") else None,
                    from_rank=int(d["from"]) if d.get("from") else None)
    return None


#: one RE2-compatible signature per form, for torch_log's detect and facts/classify.py
SIGNATURE = "|".join(re.sub(r"\(\?P<\w+>", "(?:", p.pattern) for _l, _e, p in FORMS)

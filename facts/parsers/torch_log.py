"""PyTorch distributed logs: the ProcessGroupNCCL watchdog, NCCL errors, torchrun/elastic.

Made by a job's own stderr: ``torchrun --nproc_per_node=N train.py 2>&1 | tee train.log``
(or srun/mpirun collecting every rank). Ranks interleave; NCCL's own ``NCCL INFO`` lines
are mixed in and belong to the ``nccl_log`` parser, not this one.

Sample content (PyTorch 2.4, hiyouga/LlamaFactory#7396; 2.3, vllm-project/vllm#5458; 2.x elastic, mmsegmentation#3106)::

    [rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.
    [rank3]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 3] Timeout at NCCL work: 1, last enqueued NCCL work: 1, last completed NCCL work: 0.
    torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1
      rank      : 1 (local_rank: 1)
      exitcode  : -6 (pid: 2385923)

Facts: ``torch_watchdog_timeout`` (one per rank and timed-out work; the watchdog repeats its
message in the thread-terminated line and the ``what():`` line, those are merged),
``torch_nccl_progress`` (last enqueued/completed sequence numbers), ``torch_collective_desync``
(``TORCH_NCCL_DESYNC_DEBUG`` report, one per lagging rank), ``torch_collective_fingerprint_mismatch``
(``TORCH_DISTRIBUTED_DEBUG=DETAIL``'s "Detected mismatch between collectives on ranks"), ``torch_worker_failed`` (one per
failed worker process), ``torch_nccl_error`` (citing NCCL's forwarded ``Last error:`` message
when there is one: that is the error, the wrapper line above it only names NCCL's result), and
the NCCL fact kinds of that message or of NCCL messages pasted without NCCL's prefix
(``nccl_duplicate_gpu``, ``nccl_bootstrap_failure``, ``nccl_cuda_failure``; see
:mod:`torch_nccl_forwarded`), and ``torch_warning`` for a warning of
``knowledge/torch_warnings.yaml`` (see :mod:`torch_warnings`), ``gloo_timeout`` for the Gloo
backend's "Timed out waiting Nms for recv operation to complete" (see :mod:`torch_gloo`). A traceback flattened onto one line by a paste keeps its
``srun -l`` labels (``10: ``): the line is split at them. ``rank`` is the global rank: the ``[rankN]:``
line prefix (PyTorch >= 2.2) where printed, else the ``[Rank N]`` of the message, which in
the default process group is the global rank; ``pg_rank`` keeps the latter.

Empty input, or a log with no failures (a healthy run), yields no facts.
"""
from __future__ import annotations

import re
import signal as _signal
from typing import Any

from stethoscope.facts.kinds.app import (  # noqa: F401 - the fact classes live in facts/kinds
    DataLoaderWorkerKilled, DeepspeedTraceInvalidated, TorchCollectiveDesync, TorchCollectiveFingerprintMismatch, TorchNcclCommAborted, TorchNcclError, TorchNcclProgress,
    TorchWatchdogTimeout, TorchWorkerFailed,
)
from stethoscope.facts import knowledge
from stethoscope.facts.kinds.prose import ReportedSymptom
from stethoscope.facts.model import Fact
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers import torch_log_lines as tl
from stethoscope.facts.parsers import torch_nccl_forwarded as fwd
from stethoscope.facts.parsers import torch_warnings as tw
from stethoscope.facts.parsers import torch_gloo as gloo
from stethoscope.facts.parsers import torch_pg_options as pgo
from stethoscope.facts.parsers import torch_watchdog_events as twe
from stethoscope.facts.parsers.torch_watchdog_events import TorchWatchdogEvent

KIND = "torch_log"


# one of these is in every match of tl.DETECT
_DETECT_KEYS = ("ProcessGroupNCCL", "ProcessGroupGloo.cpp:", "Watchdog caught collective operation timeout", "torch", "ChildFailedError",
                "DistBackendError", "[rank", "Duplicate GPU detected", "NVLink SHARP", "Last error:", "DataLoader worker", ".py:",
                "NCCL error: ", "NCCL error in: ", "Failed to initialize NCCL communicator: ", "communicator was aborted", "Unexpected bus error", "Unexpected BUS error", "Caught collective operation timeout", "failed (exitcode: ", " (local_rank: ", " failed: ", "Internal NCCL failure", "Failed, NCCL error ", "NCCL Error ", "NCCL failure ", " terminated with ", "Detected mismatch between collectives", "NcclError: NCCL_ERROR_", *tl.NCCL_DETAIL_NAMES, *twe.MARKERS, *gloo.MARKERS)

# torchrun 1.9-1.10's "Child process N (local_rank R) FAILED (exitcode E)" (tl.NO_ERROR_FILE_CHILD)
_DETECT_KEYS += (") FAILED (exitcode ", "== ncclSuccess")
# RCCL's unit-test harness (tl.RCCL_CHILD_NCCL_CALL)
_DETECT_KEYS += (" fails NCCL call ",)


def detect(head: str) -> bool:
    # (DETECT first: BARE's "^[ \t]*" is tried at every character, 50 us of a 7 kB train log that DETECT takes in 4)
    if any(k in head for k in _DETECT_KEYS) and (tl.DETECT.search(head) is not None or _EVENT.search(head) is not None):
        return True  # (each branch of DETECT needs one of the keys: a cheap gate)
    # a warning PyTorch prints whose message the catalogue knows (knowledge/torch_warnings.yaml), alone
    if any(m in head for m in tw.markers()):
        return True
    # an NCCL message pasted alone, without NCCL's prefix
    return ((fwd.BARE.search(head) is not None or (any(q in head for q in fwd.QUOTE_MARKS) and fwd.QUOTED.search(head) is not None))
            and fwd.bare_message(head))


# RuntimeError: [Rank 1] Caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, Timeout(ms)=60000) ran for 60006 milliseconds before timing out.
#   (NCCL_BLOCKING_WAIT=1: the caller's wait() throws it, 1.8-2.0; no "Watchdog" and no torch prefix)
BLOCKING_WAIT = r"Caught collective operation timeout: WorkNCCL\("
_EVENT = re.compile(twe.SIGNATURE + "|" + BLOCKING_WAIT + "|" + gloo.SIGNATURE)


#: a literal of every line _line reads (DeepSpeed ZeRO-3's trace remark: tl.DS_TRACE_INVALIDATED)
_LINE_MARKERS = tl.MARKERS + fwd.MARKERS + twe.MARKERS + gloo.MARKERS + ("Caught collective operation timeout",
                                                                         "Invalidate trace cache @ step")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    used: set[int] = set()
    timeouts: dict[tuple, dict[str, Any]] = {}
    progress: dict[tuple, dict[str, Any]] = {}
    workers: list[dict[str, Any]] = []
    nccl_errors: list[dict[str, Any]] = []
    desync_ctx: dict[str, Any] = {}
    gloo_last: dict[str, tuple[int, str | None]] = {}  # node -> (last line, peer) of its Gloo connect failure

    forwarded: set[tuple[int, str]] = set()  # (line, text) of messages read as a "Last error:"
    joined_to = 0  # the last line a terminal-cut message took as its continuation (tl.unwrap)
    for no, whole, start, end in tl.marked_lines(artefact, _LINE_MARKERS):
        if no <= joined_to:
            continue
        whole, end, cont = tl.unwrap(artefact.text, whole, end)
        if cont:
            joined_to = no + cont
            used.update(range(no + 1, joined_to + 1))
        segs = tl.segments(whole)
        for i, line in enumerate(segs):
            if i + 1 < len(segs):
                nxt, nxt_no = segs[i + 1], no
            else:  # (past the rows a terminal's cut, joined, left blank)
                nxt, skipped = tl.next_row(artefact.text, end)
                nxt, nxt_no = nxt.strip(), no + 1 + skipped
            _line(artefact, b, no, line, start, nxt, nxt_no, timeouts, progress, workers, nccl_errors, desync_ctx,
                  used, forwarded, gloo_last)

    workers.extend(tl.failure_table(artefact, b, used))
    if not workers and "ChildFailedError" in artefact.text:
        workers.extend(_child_failed(artefact))
    used.update(no for no, _m in tl.glog_torch_lines(artefact))
    tw.read(artefact, b, used)  # known warnings (knowledge/torch_warnings.yaml)
    pgo.read(artefact, b, used, lambda line, no: tl.line_context(artefact, line, no))  # 1.x's ProcessGroupNCCL options

    _emit_timeouts(b, timeouts, progress)
    for rec in progress.values():
        b.add(TorchNcclProgress, rec["line"], node=rec["node"], text=rec["text"], **_fields(rec, TorchNcclProgress))
    _emit_workers(b, workers)
    for rec in nccl_errors:
        b.add(TorchNcclError, rec["line"], node=rec["node"], text=rec["text"], **_fields(rec, TorchNcclError))
    result.lines_used = len(used)
    return result


_GLOO_ECHO = 3  # lines after a Gloo connect failure within which the same failure raised is its echo


def _line(artefact: Artefact, b: FactBuilder, no: int, line: str, start: int, nxt: str, nxt_no: int,
          timeouts: dict, progress: dict, workers: list, nccl_errors: list, desync_ctx: dict, used: set[int],
          forwarded: set[tuple[int, str]], gloo_last: dict[str, tuple[int, str | None]]) -> None:
    """One line (or one segment of a flattened paste) of the log."""
    node, grank = tl.line_context(artefact, line, no)
    if "communicator was aborted " in line and (a := tl.COMM_ABORTED.search(line)) is not None:
        r = a["rank"] or a["rank2"]
        b.add(TorchNcclCommAborted, no, node=node, text=line, rank=grank if grank is not None else int(r) if r else None,
              reason=a["reason"])
        used.add(no)
    if "Invalidate trace cache @ step" in line and (ds := tl.DS_TRACE_INVALIDATED.search(line)) is not None:
        want, got = ds["want"], ds["got"] or ds["got2"]
        b.add(DeepspeedTraceInvalidated, no, node=node, text=line, step=int(ds["step"]), got_module=int(got),
              expected_module=int(want) if want is not None else None,
              cache_modules=int(ds["cache"]) if ds["cache"] is not None else None)
        used.add(no)
        return
    if any(k in line for k in twe.MARKERS) and (ev := twe.read(line)) is not None:
        b.add(TorchWatchdogEvent, no, node=node, text=line, **{**ev, "rank": grank if grank is not None else ev["rank"]})
        used.add(no)
    if "operation to complete" in line and (g := gloo.read(line)) is not None:
        b.add(gloo.GlooTimeout, no, node=node, text=line, rank=grank, **g)
        used.add(no)
        return
    if "monitoredBarrier" in line and (mb := gloo.read_barrier(line)) is not None:
        b.add(gloo.GlooMonitoredBarrier, no, node=node, text=line, **mb)
        used.add(no)
        return
    if ("connectFullMesh" in line or "] connect [" in line) and (gc := gloo.read_connect(line, nxt)) is not None:
        fields, took_next = gc
        used.add(no)
        if took_next:
            used.add(nxt_no)
        # ProcessGroupGloo logs the failure ("[E ProcessGroupGloo.cpp:144] Gloo connectFullMesh failed ...") and
        # raises it ("RuntimeError: Gloo connectFullMesh failed ..."): the raise right after the log line, with
        # the same peer or none printed, is the same event
        last = gloo_last.get(node)
        if last is not None and 0 < no - last[0] <= _GLOO_ECHO and fields["remote"] in (None, last[1]):
            gloo_last[node] = (nxt_no if took_next else no, last[1])
            return
        gloo_last[node] = (nxt_no if took_next else no, fields["remote"])
        b.add(gloo.GlooConnectFailed, no, node=node, text=line, rank=grank, **fields)
        return
    if "WorkNCCL(" in line and ("Watchdog caught" in line or "blocking wait" in line or "Caught collective operation timeout" in line):
        rec = _timeout(b, no, line, node, grank)
        if rec is not None:
            _merge_timeout(timeouts, rec)
    elif "ast enqueued" in line:
        rec = _progress(b, no, line, node, grank)
        if rec is not None:
            _merge_progress(progress, rec)
    elif "failed (exitcode:" in line:
        rec = _elastic_failed(b, no, line, node)
        if rec is not None:
            workers.append(rec)
    elif ") FAILED (exitcode " in line and (nf := tl.NO_ERROR_FILE_CHILD.search(line)) is not None:
        # 1.9-1.10's note on a worker that wrote no error file: its pid, local rank and exit code, no global rank
        code = int(nf["exit"])
        workers.append(dict(line=no, text=line, node=node, local_rank=int(nf["local"]), rank=None, pid=int(nf["pid"]), exitcode=code,
                            signal=tl.signal_of(code, None), root_cause=False, from_table=False))
    elif " terminated with " in line and (sp := tl.SPAWN_EXITED.search(line)) is not None:
        # mp.spawn names the child by its index (the local rank it was started as) and a signal or an exit code;
        # a child that raised by its index alone (its traceback follows)
        sig = sp["sig"]
        code = int(sp["code"]) if sp["code"] else (-_signal.Signals[sig].value if sig in _signal.Signals.__members__ else None)
        workers.append(dict(line=no, text=line, node=node, local_rank=int(sp["idx"] or sp["ridx"]), rank=None, pid=None, exitcode=code,
                            signal=sig or tl.signal_of(code, None), root_cause=False, from_table=False))
    elif "Unexpected bus error encountered in worker" in line or "Unexpected BUS error encountered in DataLoader worker" in line:
        if tl.DATALOADER_SHM.search(line) is None:
            return
        b.add(DataLoaderWorkerKilled, no, node=node, text=line, signal="Bus error")
    elif "DataLoader worker (pid " in line:
        if (m := tl.DATALOADER_KILLED.search(line)) is None:
            return  # "exited unexpectedly with exit code N" and other worker lines: not read here
        b.add(DataLoaderWorkerKilled, no, node=node, text=line, pid=int(m["pid"]) if m["pid"].isdigit() else None,
              signal=m["signal"].strip())
    elif "Detected mismatch between collectives on ranks" in line:
        if not _fingerprint_mismatch(b, no, line, node, grank):
            return
    elif "collective #" in line or "Timeout at collective" in line or "lagging ranks" in line:
        if grank is None and "Timeout at collective" in line:
            grank = tl.line_context(artefact, tl.prev_line(artefact.text, start), no - 1)[1]
        if not _desync(b, no, line, node, grank, desync_ctx):
            return
    elif _nccl_error_line(b, no, line, nxt, nxt_no, node, grank, nccl_errors, used, forwarded):
        pass
    elif not _bare_nccl_message(b, no, line, node, forwarded):
        return
    used.add(no)


def _merge_timeout(timeouts: dict[tuple, dict[str, Any]], rec: dict[str, Any]) -> None:
    # the watchdog repeats one timeout in its LOG line, the thread-terminated line and what():
    key = (rec["node"], rec["rank"], rec["seq_num"], rec["op_type"])
    old = timeouts.get(key)
    if old is None:
        timeouts[key] = rec
        return
    for k in ("pg", "pg_name", "elapsed_ms"):
        if old[k] is None:
            old[k] = rec[k]
    old["blocking_wait"] = old["blocking_wait"] and rec["blocking_wait"]


def _merge_progress(progress: dict[tuple, dict[str, Any]], rec: dict[str, Any]) -> None:
    # "Exception ... detected by watchdog at work", "Timeout at NCCL work" and the dump-signal
    # line print the same numbers for one rank
    key = (rec["node"], rec["rank"], rec["pg"], rec["last_enqueued_seq"], rec["last_completed_seq"])
    old = progress.get(key)
    if old is None:
        progress[key] = rec
    elif old["timeout_seq"] is None:
        old["timeout_seq"] = rec["timeout_seq"]


def _fields(rec: dict[str, Any], cls: type[Fact]) -> dict[str, Any]:
    return {k: v for k, v in rec.items() if k in cls.model_fields and k not in ("kind", "id", "node", "evidence")}


# "WorkNCCL(...)" / "WorkNCCL(…)": the work's fields left out by whoever wrote the line
_ELIDED = re.compile(r"\s*(?:\.{2,}|\u2026)\s*")


def _timeout(b: FactBuilder, no: int, line: str, node: str, grank: int | None) -> dict[str, Any] | None:
    m = tl.WORK_NCCL.search(line)
    if m is None:
        # a paste cut inside the work on its last line is a capture cut short, not a form nobody reads:
        # [E ProcessGroupNCCL.cpp:474] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUC
        #   (huggingface/picotron_tutorial#6, the stored excerpt's last line)
        b.error_unless_last(no, "watchdog timeout line without a readable WorkNCCL(...)", "a watchdog timeout line")
        return None
    if _ELIDED.fullmatch(m["body"]):
        # the work left out, as people write the form in a summary, a runbook or a ticket: PyTorch always prints
        # the work's fields, so this is a person's account of a timeout, not the watchdog's line; a claim quoted
        # as a reported hang (its rank, op and timeout unknown), never a line nobody can read
        #   Watchdog caught collective operation timeout: WorkNCCL(...) ran for 600000+ milliseconds before timing out
        #     (modelscope/ms-swift#6578, the reporter's summary above the pasted log)
        #   [rank6]: WorkNCCL(...) ran for 7200015 milliseconds before timing out.      (a public note, code index)
        b.add(ReportedSymptom, no, node=node, text=line, symptom="hang", component="nccl",
              words=" ".join(line.split())[:120])
        return None
    pairs = dict(kv.split("=", 1) for kv in m["body"].split(", ") if "=" in kv)
    try:
        seq = int(pairs["SeqNum"]) if "SeqNum" in pairs else None
        timeout_ms = int(pairs["Timeout(ms)"])
        numel_in = int(pairs["NumelIn"]) if "NumelIn" in pairs else None
        numel_out = int(pairs["NumelOut"]) if "NumelOut" in pairs else None
        op = pairs["OpType"]
    except KeyError as e:
        b.error(no, f"WorkNCCL(...) without {e.args[0]}")
        return None
    except ValueError as e:
        b.error(no, f"WorkNCCL(...) with a non-numeric field: {e}")
        return None
    elapsed = None
    ran = tl.RAN_FOR.search(line, m.end())
    if ran is not None:
        if not ran["ms"].isdecimal():
            b.error(no, f"watchdog elapsed time is not a number: {ran['ms']!r}")
            return None
        elapsed = int(ran["ms"])
    prank = tl.RANK_TAG.search(line, 0, m.start())
    pg = tl.PG_TAG.search(line, 0, m.start())
    pg_rank = int(prank["rank"]) if prank else (int(pg["rank"]) if pg else None)
    rank = grank if grank is not None else pg_rank
    if rank is None:
        b.error(no, "watchdog timeout line names no rank")
        return None
    return dict(line=no, text=line, node=node, rank=rank, pg_rank=pg_rank,
                pg=pg["pg"] if pg else None, pg_name=pg["name"] if pg else None,
                seq_num=seq, op_type=op, numel_in=numel_in, numel_out=numel_out,
                timeout_ms=timeout_ms, elapsed_ms=elapsed,
                # "timed out in blocking wait", or NCCL_BLOCKING_WAIT's "Caught collective operation timeout"
                blocking_wait=ran is None or "Watchdog caught" not in line)


def _progress(b: FactBuilder, no: int, line: str, node: str, grank: int | None) -> dict[str, Any] | None:
    m = tl.PROGRESS.search(line)
    if m is None:
        b.error(no, "'last enqueued' without readable sequence numbers")
        return None
    at = tl.AT_WORK.search(line, 0, m.start())
    try:
        enq, comp = int(m["enq"]), int(m["comp"])
        at_seq = int(at["seq"]) if at else None
    except ValueError:
        b.error(no, "NCCL work sequence number is not an integer")
        return None
    pg = tl.PG_TAG.search(line)
    pg_rank = int(pg["rank"]) if pg else None
    rank = grank if grank is not None else pg_rank
    if rank is None:
        b.error(no, "NCCL progress line names no rank")
        return None
    return dict(line=no, text=line, node=node, rank=rank, pg_rank=pg_rank,
                pg=pg["pg"] if pg else None, pg_name=pg["name"] if pg else None,
                last_enqueued_seq=enq, last_completed_seq=comp, timeout_seq=at_seq)


def _limits_ms() -> tuple[int, int]:
    """knowledge/torch_watchdog.yaml's late_at_least_ms and short_below_ms (validated: facts/knowledge/perf.py TorchWatchdogLimits)."""
    limits = knowledge.load("torch_watchdog.yaml")
    return limits.late_at_least_ms, limits.short_below_ms


def _emit_timeouts(b: FactBuilder, timeouts: dict, progress: dict) -> None:
    # the watchdog line itself prints no PG; the progress line of the same rank and work does
    pg_of = {(r["node"], r["rank"], r["timeout_seq"]): r for r in progress.values() if r["timeout_seq"] is not None}
    limit, short = _limits_ms() if timeouts else (None, None)
    for rec in timeouts.values():
        rec["short_limit_ms"] = short
        if rec["elapsed_ms"] is not None:
            # how long after the work's timeout the watchdog saw it: about a second when it polls as it
            # should; far longer when the watchdog thread was blocked or the process stopped
            rec["late_ms"], rec["late_limit_ms"] = rec["elapsed_ms"] - rec["timeout_ms"], limit
        if rec["pg"] is None:
            p = pg_of.get((rec["node"], rec["rank"], rec["seq_num"]))
            if p is not None:
                rec["pg"], rec["pg_name"] = p["pg"], p["pg_name"]
        b.add(TorchWatchdogTimeout, rec["line"], node=rec["node"], text=rec["text"], **_fields(rec, TorchWatchdogTimeout))


def _desync(b: FactBuilder, no: int, line: str, node: str, grank: int | None, ctx: dict[str, Any]) -> bool:
    """The desync report's lines are continuation lines: the reporting rank comes from the
    ``[rankN]:`` line just above its "Timeout at collective" line."""
    m = tl.DESYNC_TIMEOUT_AT.search(line)
    if m is not None:
        ctx.clear()
        ctx.update(reporting_pg_rank=int(m["rank"]), timeout_op=m["op"].strip(), timeout_seq=int(m["seq"]),
                   rank=grank)
        return True
    for pattern, state in ((tl.DESYNC_JOINED, "joined_not_finished"),
                           (tl.DESYNC_FINISHED, "finished_not_joined_next"),
                           (tl.DESYNC_NEVER, "never_joined")):
        m = pattern.search(line)
        if m is None:
            continue
        try:
            ranks = [int(r) for r in m["ranks"].split(",") if r.strip()]
        except ValueError:
            b.error(no, f"desync report rank list is not numeric: {m['ranks']!r}")
            return True
        seq = int(m["seq"]) if "seq" in m.groupdict() and m["seq"] else None
        for r in ranks:
            b.add(TorchCollectiveDesync, no, node=node, text=line,
                  rank=ctx.get("rank", grank), reporting_pg_rank=ctx.get("reporting_pg_rank"),
                  timeout_op=ctx.get("timeout_op"), timeout_seq=ctx.get("timeout_seq"),
                  lagging_rank=r, state=state, collective_seq=seq)
        return True
    return False


def _fingerprint_mismatch(b: FactBuilder, no: int, line: str, node: str, grank: int | None) -> bool:
    """ProcessGroupWrapper's "Detected mismatch between collectives on ranks" (TORCH_DISTRIBUTED_DEBUG=DETAIL);
    the words quoted in prose without "Rank N is running" are left unread."""
    m = tl.PG_WRAPPER_MISMATCH.search(line)
    if m is None:
        return False
    p = tl.PG_WRAPPER_PEER.search(line, m.end())
    aspects = [a["aspect"] for a in tl.PG_WRAPPER_ASPECT.finditer(line, p.end() if p else m.end())]
    pg_rank = int(m["rank"])
    b.add(TorchCollectiveFingerprintMismatch, no, node=node, text=line, rank=grank if grank is not None else pg_rank,
          pg_rank=pg_rank, op_type=m["op"], seq_num=int(m["seq"]) if m["seq"] else None,
          peer_pg_rank=int(p["rank"]) if p else None, peer_op_type=p["op"] if p else None,
          peer_seq_num=int(p["seq"]) if p and p["seq"] else None, aspects=", ".join(aspects) or None)
    return True


def _elastic_failed(b: FactBuilder, no: int, line: str, node: str) -> dict[str, Any] | None:
    m = tl.ELASTIC_FAILED.search(line)
    if m is None:
        b.error(no, "elastic 'failed (exitcode: ...)' line without local_rank/pid")
        return None
    exitcode = int(m["exit"])
    return dict(line=no, text=line, node=node, local_rank=int(m["local"]), rank=None,
                pid=int(m["pid"]), exitcode=exitcode, signal=tl.signal_of(exitcode, None),
                root_cause=False, from_table=False)


def _child_failed(artefact: Artefact) -> list[dict[str, Any]]:
    """torchrun's ``ChildFailedError`` pasted without its failures table: a worker failed, which
    one is not shown (one record, at the exception's line)."""
    for no, line in enumerate(artefact.lines, 1):
        if "ChildFailedError" in line and tl.CHILD_FAILED.search(line):
            return [dict(line=no, text=line, node=artefact.node, local_rank=None, rank=None, pid=None, exitcode=None,
                         signal=None, root_cause=False, from_table=False)]
    return []


def _emit_workers(b: FactBuilder, workers: list[dict[str, Any]]) -> None:
    # the failures table repeats what the "failed (exitcode" line said, with the rank: prefer it
    # (by pid alone: the table names the host, the agent's line does not)
    table_pids = {w["pid"] for w in workers if w["from_table"]}
    seen: set[tuple] = set()
    for w in sorted(workers, key=lambda w: w["line"]):
        key = (w["node"], w["pid"])
        if (not w["from_table"] and w["pid"] in table_pids) or key in seen:
            continue
        seen.add(key)
        b.add(TorchWorkerFailed, w["line"], node=w["node"], text=w["text"], sigkill=w["signal"] == "SIGKILL",
              **_fields(w, TorchWorkerFailed))


def _nccl_error_line(b: FactBuilder, no: int, line: str, nxt: str, nxt_no: int, node: str, grank: int | None,
                     out: list[dict[str, Any]], used: set[int], forwarded: set[tuple[int, str]]) -> bool:
    """An NCCL error line; its ``ncclXxxError:`` and ``Last error:`` follow-up lines join it.
    The message after ``Last error:`` is NCCL's own: it becomes the NCCL fact it stands for."""
    prev = out[-1] if out else None
    m = tl.NCCL_ERROR.search(line)
    if m is not None and tl.XLA_ABORT in line:
        # XLA's "Aborting communicator: 0x... due to async NCCL error: <text>": the xla_nccl reader's line
        # (its rule says the abort is XLA's, a consequence of the error), not PyTorch's report of that error
        return True
    if m is not None:
        msg = m["msg"].strip().strip("'")  # NCCLCHECK quotes ncclGetErrorString()'s text: '...'
        if m.group(0).startswith("NCCL failure "):  # CudaCall's " ; GPU=0 ; hostname=... ; expr=...;" after the text
            msg = msg.split(" ; GPU=", 1)[0]
        v = tl.NCCL_ERROR_VERSION.search(msg)
        out.append(dict(line=no, text=line, node=node, rank=grank, message=msg, nccl_version=v and tl.torch_nccl_version(v["version"]),
                        nccl_error=tl.nccl_error_name(msg), last_error=None, tail=no))
        return True
    if "ncclSuccess" in line and (c := tl.FRAMEWORK_NCCL_CHECK.search(line)) is not None:
        # Caffe's / Caffe2's check of an NCCL call: the result's text after it (torch_log_lines.FRAMEWORK_NCCL_CHECK)
        msg = c["msg"].strip()
        out.append(dict(line=no, text=line, node=node, rank=grank, message=msg, nccl_version=None,
                        nccl_error=tl.nccl_error_name(msg), last_error=None, tail=no))
        return True
    if "ncclSuccess" in line and (c := tl.FRAMEWORK_NCCL_CHECK_BARE.search(line)) is not None:
        # the check with no text after it: the result by its number (torch_log_lines.FRAMEWORK_NCCL_CHECK_BARE)
        out.append(dict(line=no, text=line, node=node, rank=grank, message=line[c.start():].strip(), nccl_version=None,
                        nccl_error=tl.NCCL_RESULT_BY_NUMBER[int(c["a"] or c["b"])], last_error=None, tail=no))
        return True
    if " fails NCCL call " in line and (c := tl.RCCL_CHILD_NCCL_CALL.search(line)) is not None:
        # RCCL's unit-test harness: the call and its ncclResult_t by number (torch_log_lines.RCCL_CHILD_NCCL_CALL)
        out.append(dict(line=no, text=line, node=node, rank=grank, message=line[c.start():].strip(), nccl_version=None,
                        nccl_error=tl.NCCL2_RESULT_BY_NUMBER[int(c["code"])], last_error=None, tail=no))
        return True
    d = tl.NCCL_DETAIL.search(line)
    if d is not None:
        if prev is not None and prev["node"] == node and 0 <= no - prev["tail"] <= 2:
            prev["nccl_error"] = prev["nccl_error"] or d["name"]
            prev["tail"] = no
        else:
            out.append(dict(line=no, text=line, node=node, rank=grank, message=d["msg"].strip(),
                            nccl_error=d["name"], last_error=None, tail=no))
        return True
    if line.rstrip().endswith("Last error:") and prev is not None and 0 <= no - prev["tail"] <= 2:
        if nxt:
            raw_nxt = nxt
            # torchrun 2.2+ labels every line of a rank: "[rank3]: NET/OFI Request ... completed with error"
            nxt = _RANK_LABEL.sub("", nxt, count=1)
            # a launcher's or logger's wrapper repeated on both lines (vllm-project/vllm#3688, Ray + vLLM's logger):
            # (RayWorkerVllm pid=4028887) ERROR 03-28 21:38:23 ray_utils.py:44] Last error:
            # (RayWorkerVllm pid=4028887) ERROR 03-28 21:38:23 ray_utils.py:44] Cuda failure 'invalid argument'
            wrapper = line[:line.rstrip().rfind("Last error:")]
            if wrapper.strip() and nxt.startswith(wrapper):
                nxt = nxt[len(wrapper):]
            if tl.NO_LAST_ERROR.match(nxt.strip()):
                # NCCL kept no message: the line after is c10's backtrace (pytorch/pytorch#142356), not NCCL's
                prev["tail"] = no
                return True
            prev["last_error"] = nxt
            used.add(nxt_no)
            got = fwd.read(nxt)
            if got is not None and fwd.NCCL_LOG_BARE.match(raw_nxt):
                # a message nccl_log reads on this line as the bare NCCL WARN it is ("NET/IB : Unable to open device
                # mlx5_0", "Mismatched NCCL version detected : ..."): nccl_log's fact, one a line; cite it
                forwarded.add((nxt_no, nxt))
                prev["peer"], prev["peer_loopback"] = got[2], fwd.is_loopback(got[2])
                prev["line"], prev["text"] = nxt_no, None
            elif got is not None:
                cls, fields, peer = got
                forwarded.add((nxt_no, nxt))
                b.add(cls, nxt_no, node=node, **fields)
                prev["peer"], prev["peer_loopback"] = peer, fwd.is_loopback(peer)
                prev["nvls"] = bool(fields.get("nvls"))
                # cite NCCL's message, the error itself: the finding for its NCCL fact explains both
                prev["line"], prev["text"] = nxt_no, None
            elif fwd.read_shm(nxt) is not None or fwd.RDMA_COMPLETION.match(nxt.strip()):
                # NCCL's shared-memory segment message (production-stack#276), its RDMA completion error
                # (nccl#1814's, forwarded): nccl_log reads each as the bare NCCL message it is (one fact a line); cite it, as above
                prev["line"], prev["text"] = nxt_no, None
        prev["tail"] = no
        return True
    return False


# [rank3]: NET/OFI Request 0x7f14cc5b60c0 completed with error. RC: 113. Error: 2 (UNDELIVERABLE). Completed length: 0   (nccl#1928)
_RANK_LABEL = re.compile(r"^\s*\[rank\d+\]:\s?")


def _bare_nccl_message(b: FactBuilder, no: int, line: str, node: str, forwarded: set[tuple[int, str]]) -> bool:
    """An NCCL message pasted without NCCL's prefix (``Duplicate GPU detected : rank 0 and rank 1
    both on CUDA device 40``); NCCL's own log lines (``NCCL WARN``) are the NCCL parser's."""
    if "NCCL WARN" in line or "NCCL INFO" in line:
        return False
    if (no, line.strip()) in forwarded:
        return True
    if fwd.NCCL_LOG_BARE.match(line) and fwd.read(line) is not None:  # nccl_log reads it as the bare NCCL WARN it is:
        return True                                                      # its fact, one a line
    got = fwd.read(line) or fwd.quoted(line)  # pasted alone, or quoted in a sentence
    if got is None:
        return False
    cls, fields, _peer = got
    b.add(cls, no, node=node, **fields)
    return True


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (tl.DETECT, fwd.BARE, fwd.QUOTED, twe.SIGNATURE, BLOCKING_WAIT, gloo.SIGNATURE, tw.SIGNATURE)

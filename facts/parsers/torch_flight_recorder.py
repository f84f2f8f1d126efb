"""PyTorch flight-recorder dumps as JSON: what each rank's ProcessGroupNCCL last enqueued,
started and completed, collective by collective.

Made by PyTorch when ``TORCH_NCCL_DUMP_ON_TIMEOUT=1`` (with ``TORCH_FR_BUFFER_SIZE`` > 0): one
pickle per rank at ``$TORCH_FR_DUMP_TEMP_FILE<rank>`` (default ``/tmp/nccl_trace_rank_<rank>``),
converted to JSON (``json.dump(pickle.load(f), indent=1, default=str)``, or PyTorch's
``torchfrtrace`` / ``fr_trace`` tooling). The rank is not inside the dump: it comes from the
file name (``..._rank_<N>``), else from a top-level ``rank`` key.

Sample content (real, ``fr_nccl_trace_rank_1.json`` of the H200 straggler capture)::

    "pg_status": {
     "0": {
      "last_enqueued_collective": 3,
    ...
       "collective_seq_id": 3,
       "profiling_name": "nccl:all_reduce",
       "state": "completed",

Facts: ``torch_nccl_progress`` per process group of ``pg_status`` (the same kind the watchdog's
"Last enqueued NCCL work: 3" line gives, so the straggler summary reads both), citing the
``last_enqueued_collective`` line; ``torch_fr_entry`` per recorded collective, citing its
``collective_seq_id`` line. A dump that is not JSON, or without a rank, gives one parse error and no facts.
"""
from __future__ import annotations

import json
import re

from stethoscope.facts.kinds.app import TorchFrEntry  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, json_shape
from stethoscope.facts.parsers.torch_log import TorchNcclProgress

KIND = "torch_flight_recorder"

# fr_nccl_trace_rank_1.json, nccl_trace_rank_12
_RANK_IN_NAME = re.compile(r"rank_?(\d+)(?:\.json)?$")
#   "collective_seq_id": 3,
_SEQ_LINE = re.compile(r'^\s*"collective_seq_id": (\d+)', re.M)
#    "last_enqueued_collective": 4,
_ENQ_LINE = re.compile(r'^\s*"last_enqueued_collective": (-?\d+)', re.M)


def detect(head: str) -> bool:
    return '"entries"' in head and ('"pg_status"' in head or '"profiling_name"' in head) and head.lstrip().startswith("{")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    try:
        dump = json.loads(artefact.text)
    except json.JSONDecodeError as exc:
        fb.error(exc.lineno, f"flight-recorder dump is not JSON: {exc.msg}")
        return result
    except RecursionError:  # nested thousands deep
        fb.error(1, "flight-recorder dump is not JSON: nested too deep to read")
        return result
    if not isinstance(dump, dict) or not isinstance(dump.get("entries", []), list):
        fb.error(1, "flight-recorder dump: expected an object with an 'entries' list")
        return result
    m = _RANK_IN_NAME.search(artefact.path.rsplit("/", 1)[-1])
    rank = int(m[1]) if m else dump.get("rank")
    if not isinstance(rank, int):
        fb.error(1, "flight-recorder dump without a rank (no '_rank_N' in the file name, no 'rank' key)")
        return result
    with json_shape(fb, "flight-recorder dump"):  # pg_config or pg_status of another type than a map
        names = {k: (v.get("desc") if isinstance(v, dict) else None) for k, v in (dump.get("pg_config") or {}).items()}
        enq_lines = [artefact.line_of(x.start()) for x in _ENQ_LINE.finditer(artefact.text)]
        for i, (pg, st) in enumerate((dump.get("pg_status") or {}).items()):  # file order: the lines found
            if not isinstance(st, dict):
                continue
            line = enq_lines[i] if i < len(enq_lines) else 1
            fb.add(TorchNcclProgress, line, rank=rank, pg=str(pg), pg_name=names.get(pg),
                   last_enqueued_seq=st.get("last_enqueued_collective"), last_completed_seq=st.get("last_completed_collective"))
        seq_lines = [artefact.line_of(x.start()) for x in _SEQ_LINE.finditer(artefact.text)]
        for i, e in enumerate(dump.get("entries", [])):
            try:
                pg_name, pg_desc = (e.get("process_group") or [None, None])[:2]
                fb.add(TorchFrEntry, seq_lines[i] if i < len(seq_lines) else 1, rank=rank, pg=pg_name, pg_name=pg_desc,
                       seq_num=int(e["collective_seq_id"]), p2p_seq_id=e.get("p2p_seq_id"), op_type=str(e["profiling_name"]),
                       state=str(e["state"]), timeout_ms=e.get("timeout_ms"), is_p2p=bool(e.get("is_p2p", False)))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                fb.error(seq_lines[i] if i < len(seq_lines) else 1, f"flight-recorder entry {i} unreadable: {type(exc).__name__}: {exc}")
    result.lines_used = len(artefact.lines)
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = ('"entries"',)

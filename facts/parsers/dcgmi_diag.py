"""``dcgmi diag -r 1..4`` (DCGM's GPU diagnostic): its result table, and ``-j`` JSON.

Sample content (DCGM 4, NVIDIA/DCGM#284-style table; DCGM 2-3, NVIDIA/go-dcgm#52)::

    |-----  Deployment  --------+------------------------------------------------|
    | software                  | Pass                                           |
    |                           | GPU0: Pass                                     |
    +-----  Hardware  ----------+------------------------------------------------+
    | GPU Memory                | Pass - GPU: 1                                  |
    |                           | Fail - GPU: 0                                  |
    | Warning                   | GPU 0 Error using CUDA API cuCtxCreate Check   |
    |                           | DCGM and system logs for errors. Reset GPU. R  |

DCGM 4 prints a test's results per entity (``GPU0: Fail``; cpu_eud's CPUs as ``CPU0: Fail`` and
``Warning: CPU0``): a CPU's result is that CPU's (``gpu_name`` ``CPU0``, no GPU id; knowledge/dcgm.yaml
names cpu_eud's part: the host), never all GPUs'. The JSON's results of another entity group
(``"entity_group": "CPU"``) likewise.
Warning rows (``Warning``, DCGM 4's ``Warning: GPU0``) and their wrapped continuation rows are
joined into the reason of the result they follow; Info rows and the Metadata section are read
past. A result after which the table shows no border line (the next section's head, or the closing
``+----+----+``) is ``cut``: the paste stops inside its section, whose other rows (this test's other
GPUs among them: harvest 162's ``GPU Memory | Pass - GPU: 1`` whose next row is ``Fail - GPU: 0``) are
not shown. JSON (``dcgmi diag -j``): ``{"DCGM GPU Diagnostic" | "DCGM Diagnostic": {"test_categories":
[{"category", "tests": [{"name", "results": [{"gpu_id" | "entity_id", "status", "warnings":
[{"warning"}]}]}]}]}}`` (keys of nvvs/include/NvvsJsonStrings.h).

Facts: ``dcgm_diag_result`` per test and GPU (a test's all-GPU row only when it has no
per-GPU rows), with what a failure points at (the DCGM message its reason quotes, where
knowledge names one: a PCIe test failing on "NvLink link 0 is currently down" points at NVLink;
else the test's part) and whether its reason says the test was disturbed (``knowledge/dcgm.yaml``); ``cuda_error`` for a CUDA error a failure's reason quotes
(the plugins are CUDA applications: ``Unable to create CUDA context: 'CUDA-capable device(s) is/are
busy or unavailable'`` is cudaErrorDevicesUnavailable on that GPU); ``dcgm_error`` for the JSON's ``runtime_error`` (the
diagnostic did not run: ``{"DCGM Diagnostic": {"runtime_error": "...", "version": ...}}``,
dcgmi/Diag.cpp) and for the same text without ``-j`` (``Error: Unable to complete diagnostic for group 0. Return:
(-30) : DCGM GPU Diagnostic returned an error`` and the system errors under it), so that a run that never tested
anything is not read as a clean one. A table
without result rows yields nothing; one whose text stops inside a row, before its closing bar (``| ts.`` and
nothing after it: a paste that stops there), is a capture cut short (``cut_short``): that row's result and the tests
after it were not shown.
"""
from __future__ import annotations

import json
import re

from stethoscope.facts.parsers import cuda_error_catalogue as catalogue
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, json_shape
from stethoscope.facts.parsers.bench_facts import DcgmDiagRun
from stethoscope.facts.parsers.cuda_app import CudaError
from stethoscope.facts.parsers.dcgm_facts import (
    DcgmDiagResult, DcgmError, cause_shown, error_code, knowledge, not_comparable, reason_meaning, reason_text_meaning,
    test_meaning,
)

KIND = "dcgmi_diag"

# | GPU Memory                | Pass - GPU: 1                                  |
# a cell neither starts nor ends with a space, so the spaces around it have one reading (a lazy
# '[^|]*?' between two '\s*' split a run of spaces every way: a padded 3,000-character row took
# seconds, a longer one hours)
_CELL = r"(?:[^|\s](?:[^|]*[^|\s])?)?"
_ROW = re.compile(rf"^\s*\|\s*(?P<name>{_CELL})\s*\|\s*(?P<info>{_CELL})\s*\|\s*$")
# |-----  Deployment  --------+------------------------------------------------|
_SECTION = re.compile(r"^\s*[|+]-+\s+(?P<cat>[A-Z][\w ]*?)\s+-+\+")
# +---------------------------+------------------------------------------------+   (the table's closing border)
_BORDER = re.compile(r"^\s*[+|]-{3,}\+-{3,}[+|]\s*$")
# Fail - GPU: 0   /   Pass - All   /   Fail - GPU 0, 1   /   Fail
_RESULT = re.compile(r"^(?P<res>Pass|Fail|Warn|Skip|Not Run)\b(?:\s*-\s*(?:All|GPUs?:?\s*(?P<gpus>\d+(?:\s*,\s*\d+)*)))?")
# GPU0: Fail   /   CPU0: Fail   (DCGM 4: dcgmi/Diag.cpp HelperDisplayEntityResults,
#   fmt::format("{}{}: {}", DcgmFieldsGetEntityGroupString(group), entityId, result): the group's name as
#   dcgm_fields.cpp spells it, "CPU" for cpu_eud's CPUs)
_GROUPS = r"GPU|vGPU|Switch|GPU_I|GPU_CI|LINK|CPU|CPU_CORE|ConnectX"
_ENTITY = re.compile(rf"^(?P<group>{_GROUPS})\s?(?P<id>\d+): (?P<res>Pass|Fail|Warn|Skip|Not Run)\b")
# Warning: GPU0   /   Warning: CPU0   /   Warning   (fmt::format("{}: {}{}", "Warning", group, entityId))
_WARN = re.compile(rf"^Warning(?::\s*(?P<group>{_GROUPS})\s?(?P<id>\d+))?$")
_GPU_IN_TEXT = re.compile(r"^GPU\s?(?P<gpu>\d+)\b")
# dcgmi's own line when the diagnostic did not complete (dcgmi/Diag.cpp, HelperDisplayFailureMessage without -j; with -j
# the same text is the JSON's runtime_error), in each release's words:
#   "Error: Unable to complete diagnostic for group " << groupId << ". Return: (" << result << ") " << errorString(result) << "."
#     (2.x-4.0; 2.1 without the final "."; 4.1-4.4 "Return: (N) " then the response's system errors on the next lines)
#   "Error: Unable to complete diagnostic for group N. " / "... for entities <ids>. " / "... for fake GPUs <ids>. " /
#     "Error: Unable to complete diagnostic. ", then "Return: (" << result << ") : " << errorString(result), the system
#     errors on the next lines (4.5-4.6)
#   "Error: Unable to complete multi-node diagnostic on host {}. Return: ({}) {}"   (dcgmi/MnDiag.cpp, 4.x)
# Error: Unable to complete diagnostic for group 0. Return: (-30) : DCGM GPU Diagnostic returned an error   (4.6's format, filled in)
_INCOMPLETE = re.compile(
    r"^\s{0,8}(?P<msg>Error: Unable to complete (?:multi-node )?diagnostic(?: for (?:group \d{1,10}|entities [^\n]{1,200}?"
    r"|fake GPUs [^\n]{1,200}?)| on host \S{1,255})?\. ?Return:[^\n]{0,500})", re.M)
# | cpu_eud                   | Fail                                           |   (DCGM 4 names each test by its plugin's
#   *_PLUGIN_NAME / CPU_EUD_TEST_NAME (nvvs, DCGM 4.6.0): software, memory, pcie, diagnostic, targeted_stress,
#   targeted_power, memory_bandwidth, nvbandwidth, pulse_test, memtest, sm_stress, context_create, eud, cpu_eud;
#   a paste of one section names no other)
_DETECT = re.compile(r"^\s*\|\s*(?:Diagnostic|Deployment|Blacklist|Denylist|software|Memory|GPU Memory|memory|PCIe|pcie"
                     r"|diagnostic|targeted_stress|targeted_power|memory_bandwidth|nvbandwidth|pulse_test|memtest|sm_stress"
                     r"|context_create|eud|cpu_eud)"
                     r"\s+\|\s*(?:Result|Pass|Fail|Warn|Skip)"
                     r"|\"(?:DCGM GPU Diagnostic|DCGM Diagnostic)\"\s*:|^\s{0,8}Error: Unable to complete (?:multi-node )?diagnostic\b", re.M)
# |                           | ts.
#   (stas00/ml-engineering's printed -r 2 excerpt ends there, inside a wrapped Warning's row) a table row cut before its
#   closing bar: dcgmi closes every row with '|' and the table with a +---+ border, so text that stops inside a row was cut
_CUT_ROW = re.compile(r"^\s*[|+](?!.*[|+]\s*$)")
# dcgmi diag -r 3        /   dcgmi diag --run 2 -j      (options bounded: a long line of repeated commands was quadratic)
_COMMAND = re.compile(r"\bdcgmi diag\b.{0,200}?(?:-r|--run)[ =]?(?P<level>[1-4])\b")
# | DCGM Version              | 3.3.5                                          |
_META = {"dcgm version": "dcgm_version", "driver version detected": "driver_version"}
_NOT_TESTS = ("diagnostic", "dcgm version", "driver version detected", "gpu device ids detected", "gpu device serials detected",
              "number of iterations", "eud test version", "cpu eud test version")


def detect(head: str) -> bool:
    if "Unable to complete" in head and _INCOMPLETE.search(head):
        return True
    if "| " not in head and "Diagnostic\"" not in head:
        return False
    # a table row of _DETECT ends in one of these words; JSON names its diagnostic
    if not any(w in head for w in ("Result", "Pass", "Fail", "Warn", "Skip", "Diagnostic\"")):
        return False
    return bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    if "Diagnostic\"" in artefact.text and artefact.text.lstrip().startswith("{"):
        with json_shape(fb, "dcgmi diag -j"):  # a value of another type than the format's: one problem
            _json(artefact, fb, result)
        return result
    if "Unable to complete" in artefact.text:
        _incomplete(artefact, fb, result)
    rows: list[dict] = []  # results in order: test, category, res, gpu, line, reasons
    meta: dict[str, str] = {}
    command = next((c for c in (_COMMAND.search(line) for line in artefact.lines[:50]) if c), None)
    first_line = 0
    test = category = None
    last: list[dict] = []  # the results the next Warning row belongs to
    warn: dict | None = None  # the Warning being continued
    closed = 0  # the results before the last border line: their sections are shown to their end
    for n, line in enumerate(artefact.lines, 1):
        if m := _SECTION.match(line):
            category, test, warn = m["cat"], None, None
            closed = len(rows)
            result.lines_used += 1
            continue
        if "-+-" in line and _BORDER.match(line):
            closed, test, warn = len(rows), None, None
            continue
        m = _ROW.match(line)
        if not m:
            continue
        name, info = m["name"], m["info"]
        result.lines_used += 1
        first_line = first_line or n
        if (key := _META.get(name.lower())) and info:
            meta[key] = info
        if category == "Metadata" or name.lower() in _NOT_TESTS:
            continue
        if name.startswith("Info"):
            warn = None
            continue
        if w := _WARN.match(name):
            gpu, entity = _who(w["group"], w["id"])
            if w["group"] is None and (g2 := _GPU_IN_TEXT.match(info)):
                gpu = int(g2["gpu"])
            if entity is not None:  # a CPU's (or another non-GPU entity's) warning belongs to that entity's row
                targets = [r for r in last if r["entity"] == entity] or last
            else:
                targets = [r for r in last if r["gpu"] == gpu and r["entity"] is None] or [r for r in last if r["gpu"] is None or gpu is None] or last
            warn = {"text": [info], "targets": targets}
            for r in targets:
                r["reasons"].append(warn["text"])
            continue
        if name:  # a test row
            test, warn = name, None
            r = _RESULT.match(info)
            if not r:
                continue
            gpus = [int(g) for g in r["gpus"].split(",")] if r["gpus"] else [None]
            last = [_row(rows, test, category, r["res"], g, n, None) for g in gpus]
            continue
        # an empty name column: a per-GPU result, or a wrapped Warning
        if test and (e := _ENTITY.match(info) or _RESULT.match(info)):
            if "group" in e.groupdict():
                who = [_who(e["group"], e["id"])]
            else:
                who = [(int(g), None) for g in e["gpus"].split(",")] if e["gpus"] else [(None, None)]
            new = [_row(rows, test, category, e["res"], g, n, ent) for g, ent in who]
            last = new if not (last and last[0]["line"] != n and _is_sibling(last, new)) else last + new
            warn = None
        elif warn is not None:
            warn["text"].append(info)
    with_gpus = {r["test"] for r in rows if r["gpu"] is not None or r["entity"] is not None}
    for i, r in enumerate(rows):
        if r["gpu"] is None and r["entity"] is None and r["test"] in with_gpus and not r["reasons"]:
            continue  # the all-GPU row of a test with per-GPU (per-entity) rows
        reason = " ".join(_join(t) for t in r["reasons"]) or None
        _emit(fb, r["line"], r["test"], r["category"], r["res"], r["gpu"], reason, "text", cut=i >= closed, entity=r["entity"])
    if rows or meta:
        level = int(command["level"]) if command else None
        _run(fb, first_line or rows[0]["line"], [(r["test"], r["res"]) for r in rows if not (r["gpu"] is None and r["entity"] is None and r["test"] in with_gpus)],
             meta, level, "text")
        end = next(((n, ln) for n, ln in zip(range(len(artefact.lines), 0, -1), reversed(artefact.lines)) if ln.strip()), None)
        if end is not None and _CUT_ROW.match(end[1]):
            # the results of the row it stops in, and of every test after it, were not shown: no clean run
            fb.limit(end[0], "cut_short", f"dcgmi diag table ends inside a row ({end[1].strip()[:60]!r}) before its "
                     "closing bar: that row's result and the tests after it are not shown")
    return result


#: the lines under dcgmi's failure line that are its system errors (4.1 on): text until a blank line, a table or a prompt
_SYSTEM_ERROR_LINES = 8


def _incomplete(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """dcgmi's "Error: Unable to complete diagnostic ..." (the diagnostic did not run to its end: no result of it
    says the GPUs are sound): a ``dcgm_error`` with the system errors DCGM 4.1+ prints under it, as the same text in
    ``-j``'s ``runtime_error`` is."""
    lines = artefact.lines
    for m in _INCOMPLETE.finditer(artefact.text):
        n = artefact.line_of(m.start("msg"))
        parts = [m["msg"].rstrip()]  # (the rest of the line taken whole: a lazy end before "\s*$" rescanned a run of blanks)
        for below in lines[n:n + _SYSTEM_ERROR_LINES]:
            text = below.strip()
            if not text or text.startswith(("|", "+", "$", "#", "Error: Unable to complete")):
                break
            parts.append(text)
            result.lines_used += 1
        msg = " ".join(parts)[:1000]
        why = not_comparable(msg)
        fb.add(DcgmError, n, message=msg, plugin=None, gpu=None, not_comparable=why is not None, why=why,
               cause_shown=why is None or cause_shown(msg))
        result.lines_used += 1


def _run(fb: FactBuilder, line: int, results: list[tuple[str, str]], meta: dict[str, str], level: int | None, source: str) -> None:
    """The run as a whole: its level (from the command shown, else from the deepest test it ran,
    knowledge/dcgm.yaml ``levels``: a skipped test is listed at lower levels too, DCGM 2.x-3.x
    print ``EUD Test ... Skip`` in a ``-r 3`` run), versions and counts."""
    level_from = "command" if level is not None else "unknown"
    if level is None and results:
        ran = [(t, r) for t, r in results if r not in ("Skip", "Not Run")] or results
        names = {t.strip().lower().replace("_", " ") for t, _ in ran}
        found = [lv["level"] for lv in knowledge()["levels"] if names & {x.replace("_", " ") for x in lv["tests"]}]
        level, level_from = (max(found), "tests") if found else (1, "tests")
    counts = {"Pass": 0, "Warn": 0, "Fail": 0, "Skip": 0}
    for _, res in results:
        counts[res if res in counts else "Skip"] += 1
    fb.add(DcgmDiagRun, line, level=level, level_from=level_from, dcgm_version=meta.get("dcgm_version"),
           driver_version=meta.get("driver_version"), passed=counts["Pass"], warned=counts["Warn"],
           failed=counts["Fail"], skipped=counts["Skip"], source=source)


def _who(group: str | None, ident: str | None) -> tuple[int | None, str | None]:
    """(GPU id, other entity's name) of a DCGM 4 entity cell: ``GPU0`` is GPU 0; ``CPU0`` (cpu_eud's CPU) is no GPU."""
    if group is None or ident is None:
        return None, None
    return (int(ident), None) if group == "GPU" else (None, f"{group}{int(ident)}")


def _row(rows: list[dict], test: str, category: str | None, res: str, gpu: int | None, line: int, entity: str | None) -> dict:
    r = {"test": test, "category": category, "res": res, "gpu": gpu, "entity": entity, "line": line, "reasons": []}
    rows.append(r)
    return r


def _is_sibling(last: list[dict], new: list[dict]) -> bool:
    """Per-GPU rows of one test follow each other: a Warning after them may name any."""
    return all(r["test"] == new[0]["test"] for r in last)


#: dcgmi wraps a message every 45 characters, mid-word (Diag::DisplayVerboseInfo)
_WRAP = 45


def _join(parts: list[str]) -> str:
    """Join wrapped pieces: a full piece continues mid-word; a shorter one lost a trailing
    space to the table's padding."""
    return "".join(p if len(p) >= _WRAP else p + " " for p in parts).strip()


def _emit(fb: FactBuilder, line: int, test: str, category: str | None, res: str, gpu: int | None, reason: str | None, source: str,
          cut: bool = False, entity: str | None = None, error_ids: tuple[int, ...] = ()) -> None:
    component, cause = test_meaning(test)
    codes = [error_code(i) for i in error_ids]
    names = list(dict.fromkeys(c["reason"] if c else f"error_id {i}" for i, c in zip(error_ids, codes)))
    texts = list(dict.fromkeys(c["text"] for c in codes if c))
    if res in ("Fail", "Warn") and reason:
        # the reason's own DCGM message names the part better than the test does; else the code DCGM gave it
        # (dcgm_errors.h's name: its health_messages row, where knowledge has one)
        rcomp, rcause = reason_text_meaning(reason)
        if not rcomp:
            rcomp, rcause = next((m for n in names if (m := reason_meaning(n))[0] and m[1]), (None, None))
        component, cause = (rcomp, rcause) if rcomp else (component, cause)
    why = not_comparable(reason) if reason else None
    fb.add(DcgmDiagResult, line, test=test, category=category, result=res, gpu=gpu,
           gpu_name=entity or (f"GPU{gpu}" if gpu is not None else "all GPUs"), reason=reason, component=component or "gpu",
           cause=cause or "gpu_hardware_fault", not_comparable=why is not None, why=why, source=source, cut=cut,
           error_code=",".join(names) or None, error_text="; ".join(texts) or None)
    if res in ("Fail", "Warn") and reason and (found := catalogue.find_phrase(reason)):
        # the plugin is a CUDA application: the CUDA error it quotes ('Unable to create CUDA context:
        # 'CUDA-capable device(s) is/are busy or unavailable'') is read like any application's
        entry, printed = found
        fb.add(CudaError, line, error_name=entry.name, catalogue_name=entry.name, code=entry.code,
               runtime_name=entry.name if entry.api == "runtime" else None, message=printed[:300], form="phrase",
               device=gpu)


#: the JSON's status words, every version: dcgmi's ``Pass``/``Fail``/``Warn``/``Skip``/``Not Run``
#: (Diag::HelperDisplayDiagResult) and nvvs's own upper-case ``PASS``/``FAIL``/``SKIP``/``WARN``
#: (testing/TestDiagManagerStrings.h)
_STATUS = {"pass": "Pass", "fail": "Fail", "warn": "Warn", "warning": "Warn", "skip": "Skip", "not run": "Not Run"}
# "Max stress level of 2128.7 did not exceed ... for GPU 0"   /   "GPU 0: Unable to find hardware diagnostic"
_GPU_NAMED = re.compile(r"\bGPU\s?(\d+)\b")
# a DCGM release ("3.3.5", "4.2.3"); nvvs's own JSON names its own version ("1.3", "1.7") there
_DCGM_VERSION = re.compile(r"^\d+\.\d+\.\d+")


def _json(artefact: Artefact, fb: FactBuilder, result: ParseResult) -> None:
    """Every shape ``dcgmi diag -j`` and nvvs have printed, keys read by name:

    - DCGM 2.x: ``{"DCGM GPU Diagnostic": {"test_categories": [...]}}``, a result ``{"gpu_ids": "0",
      "status", "warnings": "<message>"}`` (a string);
    - DCGM 3.x: results ``{"gpu_id": "0", "status", "warnings": [{"warning", "error_id", ...}]}`` (the
      Deployment tests' entries say ``"warnings"`` inside, dcgmi/Diag.cpp), the DCGM and driver
      versions at the top (``"version"``, ``"Driver Version Detected"``);
    - DCGM 4.x: ``{"DCGM Diagnostic": {...}, "entity_groups": [...], "metadata": {"version", "Driver
      Version Detected"}}``, results ``{"entity_group": "GPU", "entity_id": 0, "status", "warnings"}`` and
      a ``test_summary`` per test;
    - ``--iterations N``: ``{"iterations": [<one of the above>, ...], "Overall Result", "warning"}``;
    - nvvs's own JSON: ``"gpu_ids": "0,1,2,3"`` (one result for several GPUs), ``"status": "FAIL"``,
      ``"warnings": ["<message>", ...]`` or ``null``.
    """
    try:
        doc = json.loads(artefact.text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested thousands deep
        fb.error(1, f"dcgmi diag -j: not JSON: {exc}")
        return
    docs = doc.get("iterations") if isinstance(doc.get("iterations"), list) else [doc]
    text = artefact.text
    pos = 0
    found: list[tuple[str, str]] = []
    meta: dict[str, str] = {}
    for one in docs:
        body = next((one[k] for k in ("DCGM GPU Diagnostic", "DCGM Diagnostic") if k in one), {})
        if body.get("runtime_error"):
            at = text.find('"runtime_error"', pos)
            msg = str(body["runtime_error"])
            why = not_comparable(msg)
            fb.add(DcgmError, artefact.line_of(at) if at >= 0 else 1, message=msg, plugin=None, gpu=None,
                   not_comparable=why is not None, why=why, cause_shown=why is None or cause_shown(msg))
        for where in (one.get("metadata") or {}, one, body):
            version = where.get("version")
            if version and _DCGM_VERSION.match(str(version)):
                meta.setdefault("dcgm_version", str(version))
            if where.get("Driver Version Detected"):
                meta.setdefault("driver_version", str(where["Driver Version Detected"]))
        for cat in body.get("test_categories") or []:
            for t in cat.get("tests") or []:
                name = str(t.get("name", "?"))
                at = text.find(f'"{name}"', pos)
                pos = at if at >= 0 else pos
                line = artefact.line_of(pos) if at >= 0 else 1
                results = t.get("results") or ([t["test_summary"]] if t.get("test_summary") else [])
                for r in results:
                    status = _STATUS.get(str(r.get("status", "")).strip().lower())
                    if status is None:
                        continue
                    ids = _error_ids(r.get("warnings"))
                    for gpu, reason, entity in _per_gpu(r, status):
                        _emit(fb, line, name, cat.get("category"), status, gpu, reason, "json", entity=entity, error_ids=ids)
                        found.append((name, status))
    if found:
        _run(fb, 1, found, meta, None, "json")
    result.lines_used = len(artefact.lines)


def _per_gpu(r: dict, status: str) -> list[tuple[int | None, str | None, str | None]]:
    """The GPUs one result is for, each with its warnings (and, for a result of another entity, that
    entity's name). A result for several GPUs (nvvs's ``"gpu_ids": "0,1,2,3"``) that fails is split
    by the GPU each warning names; one whose warnings name none stays one result for all its GPUs. A
    DCGM 4 result of a CPU (cpu_eud: ``{"entity_group": "CPU", "entity_id": 0, ...}``, dcgmi/Diag.cpp
    HelperJsonAddResult) is that CPU's (``CPU0``), never all GPUs'."""
    group = r.get("entity_group")
    warnings = _warnings(r.get("warnings"))
    if "entity_id" in r and group not in (None, "GPU"):
        # a CPU, a switch, a NIC: not a GPU
        ident = str(r.get("entity_id", "")).strip()
        name = f"{group}{int(ident)}" if ident.isdecimal() and str(group).isidentifier() else f"{group} {ident}".strip()
        return [(None, " ".join(warnings) or None, name)]
    ids = [g.strip() for g in str(r.get("gpu_id", r.get("entity_id", r.get("gpu_ids", "")))).split(",")]
    gpus = [int(g) for g in ids if g.isdecimal()]
    if len(gpus) == 1:
        return [(gpus[0], " ".join(warnings) or None, None)]
    if status in ("Fail", "Warn") and len(gpus) > 1 and warnings:
        named: dict[int, list[str]] = {}
        for w in warnings:
            for g in {int(x) for x in _GPU_NAMED.findall(w)} & set(gpus):
                named.setdefault(g, []).append(w)
        if named:
            return [(g, " ".join(ws), None) for g, ws in sorted(named.items())]
    return [(None, " ".join(warnings) or None, None)]


def _error_ids(value: object) -> tuple[int, ...]:
    """The codes of a result's warnings (DCGM 3.x-4.x: ``{"warning": "...", "error_id": 56, "error_category": 8,
    "error_severity": 4}``; dcgmi/Diag.cpp HelperJsonAddResult); none for DCGM 2.x's strings and nvvs's lists."""
    if not isinstance(value, list):
        return ()
    ids = (w.get("error_id") for w in value if isinstance(w, dict))
    return tuple(i for i in ids if isinstance(i, int) and not isinstance(i, bool) and i > 0)


def _warnings(value: object) -> list[str]:
    """A result's warnings: a string (DCGM 2.x), a list of strings (nvvs), a list of objects with
    ``warning`` (or ``warnings``: DCGM 3.x's Deployment entries), or ``null``."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if not isinstance(value, list):
        return []
    out = []
    for w in value:
        msg = w.get("warning", w.get("warnings")) if isinstance(w, dict) else w
        if isinstance(msg, str) and msg.strip():
            out.append(msg.strip())
    return out


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)

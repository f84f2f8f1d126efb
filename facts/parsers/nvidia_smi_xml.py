"""``nvidia-smi -q -x`` (XML): full per-GPU state, the same facts as ``nvidia-smi -q`` text.

Sample content (``nvidia-smi -q -x`` on a 2 x H200 host, driver 580.159.04)::

    <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">
    <nvidia_smi_log>
    	<gpu id="00000000:00:06.0">
    			<clocks_event_reason_gpu_idle>Active</clocks_event_reason_gpu_idle>
    			<remapped_row_pending>No</remapped_row_pending>

Older drivers write ``<clocks_throttle_reasons>``, ``<power_readings>`` with ``<power_draw>``
and ``<enforced_power_limit>``, and ECC counts under ``<single_bit>``/``<double_bit>``.

Only the ``<nvidia_smi_log>`` element is handed to the XML parser (stdlib ``pyexpat``, no
tree is built; what an element no fact reads holds is passed over by handlers that only
count, for the limits below): the prolog with its DOCTYPE is never read, so no DTD is loaded
and no entity can be declared; an undeclared entity inside is a well-formedness error,
reported as a :class:`ParseError` like any other. Evidence lines come from expat's position
at each start tag, offset to where the element begins in the file, so a terminal paste
around the XML keeps its line numbers. Every line from ``<nvidia_smi_log>`` to its end tag counts as used.
A ``<gpu>`` element laid out like the document's first one (a fleet node's 8 GPUs differ only in
their leaves' text) is read from that one's plan without expat's callbacks: nvidia_smi_xml_blocks.

Hardened against hostile XML: elements nested deeper than ``MAX_DEPTH`` (nvidia-smi nests 6)
or more than ``MAX_ELEMENTS`` of them stop the parse there; the GPUs read so far keep their
facts and the limit is reported in the coverage (``coverage.limits``). A 1.4 MB file of 200k
nested elements costs milliseconds, not the square of its depth.

Facts emitted (classes in :mod:`gpu_state_facts`): see :mod:`nvidia_smi_q`; the evidence of
``gpu_info`` is the ``<gpu id=...>`` line. Empty input, or no ``<nvidia_smi_log>``, yields
no facts: it says nothing about the GPUs.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from xml.parsers import expat

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.gpu_state_facts import GpuRecord, ecc_counter_of, emit_gpu_facts
from stethoscope.facts.parsers.nvidia_smi_xml_blocks import feed
from stethoscope.facts.parsers.unrecognised_text import error_line

KIND = "nvidia_smi_xml"

# <nvidia_smi_log>
ROOT_START = re.compile(r"<nvidia_smi_log\b")
# <?xml version="1.0" ?>
# <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">
# (each declaration bounded by the 512 characters parse() searches before the root: unbounded, a run scanned a long
# line to its end once per "<?xml" in it, 0.8 s CPU on bench/redos.py's 120,000-character line -> 14 ms)
PROLOG = re.compile(r"(?:<\?xml[^>]{0,512}\?>\s*)?(?:<!DOCTYPE\s+nvidia_smi_log[^>\[]{0,512}>\s*)?$")
# </nvidia_smi_log>
ROOT_END = "</nvidia_smi_log>"
# A part of one GPU's element pasted without the document around it (no <nvidia_smi_log>, often no <gpu>): a ticket
# quotes the section it is about, indented as nvidia-smi wrote it (microsoft/pai#2534, a 2080 Ti's ECC block):
# \t\t<ecc_errors>
# \t\t\t<volatile>
# \t\t\t\t<sram_correctable>N/A</sram_correctable>
# Read as one GPU's elements where its first line opens <gpu id=...> or an element below <gpu> that a fact reads.
FRAGMENT_NAMES = ("ecc_errors", "ecc_mode", "retired_pages", "remapped_rows", "clocks_event_reasons", "clocks_throttle_reasons",
                  "clocks_event_reasons_counters", "clocks_throttle_reasons_counters", "gpu_power_readings",
                  "power_readings", "temperature", "fabric", "pci", "processes", "gpu_recovery_action", "gpu_reset_status")
# (the element's start tag alone on the text's first line, the next line another tag: a sentence naming one is prose)
FRAGMENT_START = re.compile(r"\A\s*<(?:gpu id=\"[^\"\n]{0,64}\">|(?:" + "|".join(FRAGMENT_NAMES) + r")>)[ \t]*\r?\n\s*<")
#: nvidia-smi nests at most 6 levels (gpu > pci > pci_gpu_link_info > pcie_gen > ...); an
#: 8-GPU log holds about 4,000 elements
MAX_DEPTH = 32
MAX_ELEMENTS = 500_000


class _Limit(Exception):
    """Raised inside an expat callback to stop the parse at a limit."""

    def __init__(self, limit: str, line: int, detail: str):
        self.limit, self.line, self.detail = limit, line, detail

_POWER = {"power_draw": "draw", "instant_power_draw": "instant", "average_power_draw": "average",
          "power_limit": "limit", "current_power_limit": "current_limit",
          "requested_power_limit": "requested_limit", "enforced_power_limit": "enforced_limit",
          "default_power_limit": "default_limit", "min_power_limit": "min_limit",
          "max_power_limit": "max_limit"}

#: element path below <gpu> -> record key of :mod:`gpu_state_facts`
KEYS: dict[tuple[str, ...], str] = {
    ("product_name",): "info.name", ("uuid",): "info.uuid", ("serial",): "info.serial",
    ("vbios_version",): "info.vbios", ("product_architecture",): "info.arch",
    ("persistence_mode",): "info.persistence", ("gpu_recovery_action",): "info.recovery_action",
    # <vgpu_software_licensed_product><license_status>Licensed (Expiry: 2026-7-7 16:1:44 GMT)</license_status>
    ("vgpu_software_licensed_product", "license_status"): "info.vgpu_license",
    ("gpu_reset_status", "reset_required"): "info.reset_required",
    ("gpu_reset_status", "drain_and_reset_recommended"): "info.drain_and_reset",
    ("temperature", "gpu_temp"): "temp.gpu", ("temperature", "memory_temp"): "temp.memory",
    ("temperature", "gpu_temp_max_threshold"): "temp.shutdown",
    ("temperature", "gpu_temp_slow_threshold"): "temp.slowdown",
    ("temperature", "gpu_temp_max_gpu_threshold"): "temp.max_operating",
    ("temperature", "gpu_temp_max_mem_threshold"): "temp.max_memory",
    ("temperature", "gpu_temp_tlimit"): "temp.tlimit",
    ("temperature", "gpu_temp_max_tlimit_threshold"): "temp.shutdown_tlimit",
    ("temperature", "gpu_temp_slow_tlimit_threshold"): "temp.slowdown_tlimit",
    ("temperature", "gpu_temp_max_gpu_tlimit_threshold"): "temp.max_operating_tlimit",
    ("temperature", "gpu_temp_max_mem_tlimit_threshold"): "temp.max_memory_tlimit",
    **{(sec, k): f"power.{v}" for sec in ("gpu_power_readings", "power_readings") for k, v in _POWER.items()},
    ("ecc_mode", "current_ecc"): "ecc_mode.current", ("ecc_mode", "pending_ecc"): "ecc_mode.pending",
    ("ecc_errors", "aggregate", "sram_threshold_exceeded"): "ecc.threshold",
    ("ecc_errors", "channel_repair_pending"): "ecc.channel_repair",
    ("ecc_errors", "tpc_repair_pending"): "ecc.tpc_repair",
    ("ecc_errors", "unrepairable_memory"): "ecc.unrepairable",
    ("retired_pages", "multiple_single_bit_retirement", "retired_count"): "retired.sbe",
    ("retired_pages", "double_bit_retirement", "retired_count"): "retired.dbe",
    ("retired_pages", "pending_blacklist"): "retired.pending_blacklist",
    ("retired_pages", "pending_retirement"): "retired.pending_retirement",
    ("remapped_rows", "remapped_row_corr"): "remap.corr",
    ("remapped_rows", "remapped_row_corr_inactive"): "remap.corr_inactive",
    ("remapped_rows", "remapped_row_unc"): "remap.unc",
    ("remapped_rows", "remapped_row_unc_inactive"): "remap.unc_inactive",
    ("remapped_rows", "remapped_row_pending"): "remap.pending",
    ("remapped_rows", "remapped_row_failure"): "remap.failure",
    **{("remapped_rows", "row_remapper_histogram", f"row_remapper_histogram_{k}"): f"remap.bank_{k}"
       for k in ("max", "high", "partial", "low", "none")},
    ("pci", "pci_gpu_link_info", "pcie_gen", "max_link_gen"): "pcie.gen_max",
    ("pci", "pci_gpu_link_info", "pcie_gen", "current_link_gen"): "pcie.gen_current",
    ("pci", "pci_gpu_link_info", "pcie_gen", "device_current_link_gen"): "pcie.gen_device_current",
    ("pci", "pci_gpu_link_info", "pcie_gen", "max_device_link_gen"): "pcie.gen_device_max",
    ("pci", "pci_gpu_link_info", "pcie_gen", "max_host_link_gen"): "pcie.gen_host_max",
    ("pci", "pci_gpu_link_info", "link_widths", "max_link_width"): "pcie.width_max",
    ("pci", "pci_gpu_link_info", "link_widths", "current_link_width"): "pcie.width_current",
    ("pci", "replay_counter"): "pcie.replay", ("pci", "replay_rollover_counter"): "pcie.rollover",
    # clocks and load, as nvidia_smi_q reads them (issue 15: pinned clocks, idle GPUs)
    ("clocks", "graphics_clock"): "clocks.graphics", ("clocks", "sm_clock"): "clocks.sm", ("clocks", "mem_clock"): "clocks.memory",
    ("applications_clocks", "graphics_clock"): "clocks.app_graphics", ("applications_clocks", "mem_clock"): "clocks.app_memory",
    ("default_applications_clocks", "graphics_clock"): "clocks.default_app_graphics",
    ("default_applications_clocks", "mem_clock"): "clocks.default_app_memory",
    ("max_clocks", "graphics_clock"): "clocks.max_graphics", ("max_clocks", "mem_clock"): "clocks.max_memory",
    ("utilization", "gpu_util"): "usage.util",
    ("fabric", "state"): "fabric.state", ("fabric", "status"): "fabric.status",
    ("fabric", "cliqueId"): "fabric.clique_id", ("fabric", "clusterUuid"): "fabric.cluster_uuid",
    ("fabric", "health", "summary"): "fabric.health_summary",
}
#: container elements whose start line is the evidence of their fact
SECTIONS = {("gpu_power_readings",): "power.section", ("power_readings",): "power.section",
            ("retired_pages",): "retired.section"}
#: reason container -> (prefix of its children, section name as the text output prints it)
REASON_SECTIONS = {"clocks_event_reasons": ("clocks_event_reason_", "Clocks Event Reasons"),
                   "clocks_throttle_reasons": ("clocks_throttle_reason_", "Clocks Throttle Reasons")}
REASON_NAMES = {"display_clocks_setting": "display_clock_setting"}
COUNTER_SECTIONS = {"clocks_event_reasons_counters": "clocks_event_reasons_counters_",
                    "clocks_throttle_reasons_counters": "clocks_throttle_reasons_counters_"}
COUNTER_NAMES = {"sw_therm_slowdown": "sw_thermal_slowdown", "hw_therm_slowdown": "hw_thermal_slowdown",
                 "hw_power_brake": "hw_power_brake_slowdown"}
#: <processes><process_info><pid>: one per process the GPU lists
_PID = ("processes", "process_info", "pid")
#: first elements below <gpu> of the leaves :func:`_take` keeps beside KEYS' (ecc_errors at any depth)
_OTHERS = frozenset({"processes", "ecc_errors", *REASON_SECTIONS, *COUNTER_SECTIONS})
#: paths below <gpu> of the containers that hold a leaf :func:`_take` keeps: the reader passes
#: over what any other element holds
_OPEN = frozenset({path[:i] for path in KEYS for i in range(1, len(path))}
                  | {(s,) for s in (*REASON_SECTIONS, *COUNTER_SECTIONS, "processes")} | {_PID[:2]})

#: a line of only blanks inside a document, its line end before it: "\n  \n" (counted, not read). The blanks are
#: taken possessively: no blank is a newline, so giving one back never lets the newline after them match; at every
#: line of a tab-indented document the greedy form gave its indentation back tab by tab (a bench node's 214 kB -q -x
#: holding 8 such lines: findall 510 -> 290 us, load ~10 on 2 cores)
BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*+(?=\n)")
#: whether there is one at all (a document printed by nvidia-smi holds none: ~0.02 ms a 214 kB -q -x, findall ~0.26)
_ANY_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")


#: a line of a document that no element opens (nvidia-smi's own: a value on a line of its own, '\t\t\tNone' in
#: <mig_devices>): where it names an error, another program's line (_foreign_lines)
#:   Exception: Server process terminated unexpectedly.       (harvest 2504, THUDM/slime#1326)
_TEXT_LINE = re.compile(r"\n[ \t]*+[^<\s][^\n]*")


def _foreign_lines(artefact: Artefact, text: str, pos: int, end: int) -> list[int]:
    """The lines (of ``artefact``) between offsets ``pos`` and ``end`` that no element opens and that hold an error word
    or a failure form: not nvidia-smi's."""
    if pos < 0:
        return []
    return [artefact.line_of(t.start() + 1) for t in _TEXT_LINE.finditer(text, pos, end)
            if error_line(t.group())]


def _blank_lines(text: str, pos: int, end: int) -> int:
    """The lines of only blanks between offsets ``pos`` and ``end``."""
    return len(BLANK_LINE.findall(text, pos, end)) if _ANY_BLANK_LINE.search(text, pos, end) else 0


def detect(head: str) -> bool:
    return ROOT_START.search(head) is not None or FRAGMENT_START.match(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    builder = FactBuilder(artefact, result)
    text, pos = artefact.text, 0
    if ROOT_START.search(text) is None and (f := FRAGMENT_START.match(text)) is not None:
        _parse_fragment(artefact, builder, result, text.find(">", f.start()) + 1)
        return result
    while (m := ROOT_START.search(text, pos)):
        end = text.find(ROOT_END, m.end())
        stop = len(text) if end == -1 else end + len(ROOT_END)
        first = artefact.line_of(m.start())
        xml = text[m.start():stop]
        newlines = _parse_log(builder, xml, first, cut=end == -1)
        # the prolog right before the root counts as used, though it is never parsed (its lines
        # counted back from the root's: line_of asked for an earlier offset builds a table of lines)
        prolog = PROLOG.search(text, max(pos, m.start() - 512), m.start())
        begin = first - text.count("\n", prolog.start(), m.start()) if prolog and prolog.group() else first
        # the line of the document's last character: its line ends as the reading counted them (a
        # count of 200 kB is ~0.25 ms), else counted here
        last = artefact.line_of(stop - 1) if newlines is None else first + newlines - (xml[-1] == "\n")
        # its non-blank lines, not its span (as nvidia_smi_q counts a block: a blank line counted as read hides an
        # unread one from parse_one's count)
        # another program's error lines inside the document (a stderr interleaved by '2>&1', a paste's stray line)
        # are no part of it: left unread, so that engine/foreign_runs.py reads them
        holes = _foreign_lines(artefact, text, text.find("\n", m.start()), stop)
        result.lines_used += last - begin + 1 - _blank_lines(text, text.rfind("\n", 0, m.start()), stop) - len(holes)
        off = artefact.line_offset
        for hole in holes:  # the document's lines read whole (foreign_runs), but for those
            if hole > begin:
                result.spans.append((begin + off, hole - 1 + off))
            begin = hole + 1
        if begin <= last:
            result.spans.append((begin + off, last + off))
        pos = stop
    return result


def _parse_fragment(artefact: Artefact, b: FactBuilder, result: ParseResult, opened: int) -> None:
    """A part of one GPU's element without the document around it (FRAGMENT_START): read inside a root and a <gpu> of
    no id (the GPU unknown) put before its first line on that line (its line numbers kept), up to its last tag's line;
    a cut_short limit says the rest of the GPU's state was not in the paste (never a whole GPU's health)."""
    text = artefact.text
    start = text.rfind("\n", 0, opened) + 1
    end = text.rfind(">") + 1
    stop = text.find("\n", end)
    stop = len(text) if stop == -1 else stop
    gpu = text[start:opened].lstrip().startswith("<gpu ")
    xml = "<nvidia_smi_log>" + ("" if gpu else '<gpu id="">') + text[start:stop]
    first = artefact.line_of(start)
    _parse_log(b, xml, first, cut=True, fragment=True)
    last = artefact.line_of(max(start, stop - 1))
    result.lines_used += last - first + 1 - _blank_lines(text, start - 1 if start else 0, stop)
    result.spans.append((first + artefact.line_offset, last + artefact.line_offset))


class _Path:
    """A path below ``<gpu>`` that a fact reads, or that holds one: what its element gives (a
    record key, a section's line, a leaf :func:`_take` reads) and its child paths, found once
    a process (a fleet's documents repeat the same few hundred paths)."""

    __slots__ = ("path", "key", "section", "taken", "children")

    def __init__(self, path: tuple[str, ...]):
        self.path = path
        self.key = KEYS.get(path)
        self.section = SECTIONS.get(path)
        #: a leaf here goes to _take (processes, clock reasons and their counters, ECC counts)
        self.taken = bool(path) and not self.key and (
            path[0] in _OTHERS and (path[0] != "ecc_errors" or (len(path) >= 3 and ecc_counter_of(path) is not None)))
        self.children: dict[str, _Path | None] = {}

    def child(self, name: str) -> _Path | None:
        """The path of a child element named ``name``; None where no fact reads it or below it."""
        sub = self.path + (name,)
        node = _Path(sub) if sub in _OPEN or sub in KEYS or sub[0] in _OTHERS else None
        if len(self.children) < _CHILDREN_KEPT:  # a hostile document's names are not all kept
            self.children[name] = node
        return node


_CHILDREN_KEPT = 512
#: the path of a <gpu> element (and of the root: nothing below it is read but <gpu>)
_GPU = _Path(())
_UNSEEN = object()


class _Reader:
    """expat callbacks: the element path below ``<gpu>``, the leaf values a fact reads.

    An element whose path no fact reads (most of a GPU's: memory usage, encoder stats,
    inforom, ...) is passed over with its content by two small handlers that only count
    elements and depth for the limits: no path, no line, no text (_OPEN says which paths a
    fact reads below). The handlers are closures over the state (no attribute lookups: they
    run for each element of each GPU)."""

    def __init__(self, first_line: int):
        offset = first_line - 1
        #: per open element read: (its path below <gpu>, or None where no fact reads it or what
        #: it holds; its start line; the elements started up to it: a leaf when none started since)
        stack: list[tuple[_Path | None, int, int]] = []
        chars: list[str] = []
        top: dict[str, str] = {}
        records: list[GpuRecord] = []
        self.top, self.records, self.rec = top, records, None
        parser = self.parser = expat.ParserCreate()
        parser.buffer_text = True  # one text callback per run of text, not one per line
        elements = 0
        passing = 0  # open elements passed over (not on the stack)
        rec: GpuRecord | None = None

        def stop(depth: int) -> None:
            """Past a limit (the element now opened inside ``depth`` others): the parse stops."""
            line = parser.CurrentLineNumber + offset
            if depth >= MAX_DEPTH:
                raise _Limit("xml_depth", line, f"elements nested deeper than {MAX_DEPTH} levels: the rest of the document not read")
            raise _Limit("xml_elements", line, f"more than {MAX_ELEMENTS:,} elements: the rest of the document not read")

        def start(name: str, attrs: dict[str, str]) -> None:
            nonlocal elements, passing, rec
            depth = len(stack)
            elements += 1
            if depth >= MAX_DEPTH or elements > MAX_ELEMENTS:
                stop(depth)
            chars.clear()
            if depth >= 2:
                parent = stack[-1][0]
                if parent is None:  # inside an element no fact reads: the rest of it is passed over
                    passing = 1
                    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = pass_start, pass_end, None
                    return
                node = parent.children.get(name, _UNSEEN)
                if node is _UNSEEN:
                    node = parent.child(name)
                if node is None:
                    stack.append((None, 0, elements))
                    return
                line = parser.CurrentLineNumber + offset
                if node.section:
                    rec.values[node.section] = ("", line)  # type: ignore[union-attr]  # below <gpu>
                stack.append((node, line, elements))  # type: ignore[arg-type]
                return
            line = parser.CurrentLineNumber + offset
            if depth == 1 and name == "gpu":
                rec = self.rec = GpuRecord(pci_bus_id=try_pci_bus_id(attrs.get("id")) or "unknown", line=line)
                records.append(rec)
            # paths below <gpu> start empty; below any other element of the log nothing is read
            stack.append((_GPU, line, elements) if depth == 0 or name == "gpu" else (None, line, elements))

        def end(name: str) -> None:
            nonlocal rec
            node, line, before = stack.pop()
            depth = len(stack)
            if before == elements:  # a leaf
                if depth == 1:
                    top[name] = "".join(chars).strip()
                elif depth and node is not None:
                    if (key := node.key):
                        rec.values[key] = ("".join(chars).strip(), line)  # type: ignore[union-attr]  # below <gpu>
                    elif node.taken:
                        _take(rec, node.path, "".join(chars).strip(), line)  # type: ignore[arg-type]
            chars.clear()
            if depth == 1 and name == "gpu":
                rec = self.rec = None

        def pass_start(name: str, attrs: dict[str, str]) -> None:
            nonlocal elements, passing
            elements += 1
            depth = len(stack) + passing
            if depth >= MAX_DEPTH or elements > MAX_ELEMENTS:
                stop(depth)
            passing += 1

        def pass_end(name: str) -> None:
            nonlocal passing
            if passing:
                passing -= 1
            else:  # the end of the element passed over (on the stack)
                parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, chars.append
                end(name)

        def state() -> tuple[int, int]:
            """(elements open, elements started): where nvidia_smi_xml_blocks may read a <gpu> itself."""
            return len(stack) + passing, elements

        def count(n: int) -> None:
            """``n`` elements read without the callbacks (nvidia_smi_xml_blocks), counted for the limit."""
            nonlocal elements
            elements += n

        def skip(n: int) -> None:
            """``n`` line ends read without expat (nvidia_smi_xml_blocks: a <gpu> element read from its
            plan; ~40 ns a character for expat to read them): what expat reads next is ``n`` lines further on."""
            nonlocal offset
            offset += n

        def line(expat_line: int) -> int:
            """The artefact's line of expat's line ``expat_line`` (an error's)."""
            return expat_line + offset

        self.state, self.count, self.skip, self.line = state, count, skip, line
        parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, chars.append


def _take(rec: GpuRecord, path: tuple[str, ...], value: str, line: int) -> None:
    """One leaf below ``<gpu>`` (``path`` below it) into the record, if a fact reads it."""
    if path == _PID:
        rec.values["usage.processes"] = (str(int(rec.values.get("usage.processes", ("0", line))[0]) + 1), line)
    elif path == ("processes",) and not value:  # <processes></processes>: none
        rec.values["usage.no_processes"] = ("0", line)
    elif (key := KEYS.get(path)):
        rec.values[key] = (value, line)
    elif (where := _target(path)) is not None:
        column, what = where
        if column == "reasons":
            rec.reasons.append((what[0], value, line, what[1]))
        elif column == "counters":
            rec.counters[what] = (value, line)
        else:
            rec.ecc.append((*what, value, line))


@lru_cache(maxsize=1024)
def _target(path: tuple[str, ...]) -> tuple[str, Any] | None:
    """Where :func:`_take` puts a leaf of ``path`` whatever its value: ("reasons", (reason,
    section name)), ("counters", reason) or ("ecc", (scope, error type, location)); None where
    it is no such leaf (a record key, a process, or a leaf no fact reads). A plan reads its GPUs'
    leaves by it (nvidia_smi_xml_blocks._columns), one path at a time."""
    leaf = path[-1] if path else ""
    if path in (_PID, ("processes",)) or path in KEYS:
        return None
    if len(path) == 2 and path[0] in REASON_SECTIONS and leaf.startswith(REASON_SECTIONS[path[0]][0]):
        prefix, section = REASON_SECTIONS[path[0]]
        reason = leaf[len(prefix):]
        return "reasons", (REASON_NAMES.get(reason, reason), section)
    if len(path) == 2 and path[0] in COUNTER_SECTIONS and leaf.startswith(COUNTER_SECTIONS[path[0]]):
        reason = leaf[len(COUNTER_SECTIONS[path[0]]):]
        return "counters", COUNTER_NAMES.get(reason, reason)
    if path and path[0] == "ecc_errors" and len(path) >= 3 and (c := ecc_counter_of(path)):
        return "ecc", c
    return None


#: a CR not followed by LF: expat counts it as a line end, the artefact's lines do not (fuzz input
#: fixtures/fuzz/nvidia_smi_xml_lone_cr.xml)
# 	<timestamp>Fri 9ov  3 11:39\r417
_LONE_CR = re.compile(r"\r(?!\n)")


#: containers no fact reads, whose content expat is spared (blank lines in its place keep every
#: line number): an H100/H200 GPU lists ~220 supported clock pairs, half the elements of its log
#: 		<supported_clocks>
#: 			<supported_mem_clock>
SKIPPED = ("supported_clocks",)


def _blank_skipped(xml: str) -> str:
    """``xml`` with the content of each SKIPPED container replaced by its newlines (str.find
    and str.count: C speed; a content equal to the one before, as a fleet node's GPUs list the
    same clocks, is compared, not counted again). A container left open keeps its content
    (expat reports it)."""
    for name in SKIPPED:
        opening, closing = f"<{name}>", f"</{name}>"
        if opening not in xml:
            continue
        parts: list[str] = []
        pos = 0
        before, blank, after = "", "", closing  # the content before, its newlines, it with the closing tag
        while (start := xml.find(opening, pos)) != -1:
            start += len(opening)
            if xml.startswith(after, start):  # the content before, then the closing tag (no find: it ends in ">")
                end = start + len(before)
            elif (end := xml.find(closing, start)) == -1:
                break
            elif (content := xml[start:end]) != before:
                before, blank, after = content, "\n" * content.count("\n"), content + closing
            parts += (xml[pos:start], blank)
            pos = end
        parts.append(xml[pos:])
        xml = "".join(parts)
    return xml


def _parse_log(b: FactBuilder, xml: str, first_line: int, cut: bool = False, fragment: bool = False) -> int | None:
    """One ``<nvidia_smi_log>`` document; ``cut``: its end tag is not in the text (a paste or a
    capture that stops mid-document, 1Panel-dev/1Panel#10990): what is there is read (expat is
    not told the input ended, so the open elements are no error) and a ``cut_short`` limit says
    the rest was not, so the verdict cannot be healthy. Returns the document's line ends where
    the reading counted them (nvidia_smi_xml_blocks.feed), else None."""
    if "\r" in xml:  # expat counts a lone CR as a line end, the artefact's lines do not
        xml = _LONE_CR.sub(" ", xml)
    reader = _Reader(first_line)
    newlines = None
    try:
        # the blanked text has the same line ends (_blank_skipped), and a lone CR is one character
        newlines = feed(reader, _blank_skipped(xml), not cut, first_line, (MAX_DEPTH, MAX_ELEMENTS), _GPU, _take, _target)
    except expat.ExpatError as e:
        b.error(reader.line(e.lineno or 1), f"malformed nvidia-smi XML: {expat.ErrorString(e.code)}")
    except _Limit as hit:
        b.limit(hit.line, hit.limit, hit.detail)
    else:
        if fragment:
            b.limit(first_line, "cut_short", "a part of nvidia-smi -q -x pasted without <nvidia_smi_log>"
                    + ("" if reader.records and reader.records[0].pci_bus_id != "unknown" else " and the GPU's id")
                    + ": the GPU's other elements were not in the paste")
        elif cut:
            inside = reader.rec.pci_bus_id if reader.rec is not None else None
            b.limit(first_line + xml.count("\n", 0, len(xml.rstrip())), "cut_short",
                    "nvidia-smi -q -x ends before </nvidia_smi_log>" + (f", inside GPU {inside}'s element" if inside else "")
                    + " (the output cut, or nvidia-smi killed): what follows was not read")
    attached = reader.top.get("attached_gpus", "")
    complete = attached.isdecimal() and int(attached) == len(reader.records)
    for i, rec in enumerate(reader.records):
        rec.index = i if complete else None
        rec.driver_version = reader.top.get("driver_version") or None
        rec.cuda_version = reader.top.get("cuda_version") or None
        rec.taken_at = reader.top.get("timestamp") or None
        emit_gpu_facts(b, rec)
    return newlines


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (ROOT_START, FRAGMENT_START)

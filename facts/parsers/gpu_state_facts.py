"""Fact classes shared by the ``nvidia-smi -q`` text and ``nvidia-smi -q -x`` XML parsers.

Both parsers read one GPU block into a :class:`GpuRecord` whose keys are format-neutral
(``temp.gpu``, ``pcie.gen_current``, ...), each holding the raw value and its 1-based line;
:func:`emit_gpu_facts` turns a record into facts. So the text and the XML of one GPU state
give the same facts by construction; only the evidence lines differ.

Values nvidia-smi prints when it cannot tell (``N/A``, ``[N/A]``, ``Not Supported``,
``Unknown Error``, ``Not Found``, ...) become None; anything else that does not read as the
expected number or state is a :class:`ParseError` naming the line, and the field is None.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter
from typing import Any

from stethoscope.facts.kinds.gpu import (  # noqa: F401 - the fact classes live in facts/kinds
    GpuClockReason, GpuClockReasons, GpuClocks, GpuEccCount, GpuEccMode, GpuEccThreshold, GpuFabric, GpuFact, GpuInfo,
    GpuMemoryRepair, GpuPcieLink, GpuPlatform, GpuPower, GpuRetiredPages, GpuRowRemap, GpuTemperature, GpuUsage,
    GpuVgpuLicense,
)
from stethoscope.facts.parsers.base import FactBuilder


@dataclass
class GpuRecord:
    """One GPU block read by either parser, in format-neutral keys: key -> (raw value, line)."""

    pci_bus_id: str
    line: int  # the ``GPU ...`` line / the ``<gpu id=...>`` line
    index: int | None = None
    driver_version: str | None = None
    cuda_version: str | None = None
    taken_at: str | None = None
    values: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: (reason, raw, line, section_name) in file order
    reasons: list[tuple[str, str, int, str]] = field(default_factory=list)
    counters: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: (scope, error_type, location, raw, line) in file order
    ecc: list[tuple[str, str, str, str, int]] = field(default_factory=list)


# ---- a GPU block read from the plan of one laid out alike ----------------------------

@dataclass(frozen=True)
class Columns:
    """How a reader's plan (nvidia_smi_q._Plan, nvidia_smi_xml_blocks._Plan) fills a record from
    the values of a GPU block laid out like the one it was made from: each column read in C
    (itemgetter, zip, map) rather than value by value (~90 a GPU). Within a column the values
    keep their order (a key given twice: the later one, as read line by line); between columns
    nothing depends on order (record keys of leaves, of sections and of ``others`` are apart;
    reasons, counters and ECC counts go to their own lists)."""

    #: (getter of the value numbers, lines below the GPU line, payload) per column; getter None: empty
    keys: tuple[Callable | None, tuple[int, ...], tuple[str, ...]]
    reasons: tuple[Callable | None, tuple[int, ...], tuple[tuple[str, str], ...]]  # (reason, section name)
    counters: tuple[Callable | None, tuple[int, ...], tuple[str, ...]]
    ecc: tuple[Callable | None, tuple[int, ...], tuple[tuple[str, str, str], ...]]  # (scope, type, location)
    #: (record key, line below) of each section whose start is evidence
    sections: tuple[tuple[str, int], ...]
    #: (what the reader's ``other`` is given, value number or -1, line below, the text where -1)
    #: of the values read one by one (processes: counted, in any order)
    others: tuple[tuple[Any, int, int, str | None], ...]

    @classmethod
    def of(cls, entries: list[tuple[str, Any, int, int]], sections: list[tuple[str, int]],
           others: list[tuple[Any, int, int, str | None]]) -> Columns:
        """From (column, payload, value number, line below) entries in reading order."""
        cols: dict[str, tuple[list, list, list]] = {c: ([], [], []) for c in ("keys", "reasons", "counters", "ecc")}
        for column, payload, i, below in entries:
            numbers, belows, payloads = cols[column]
            numbers.append(i)
            belows.append(below)
            payloads.append(payload)
        made = {c: (_getter(n), tuple(b), tuple(p)) for c, (n, b, p) in cols.items()}
        return cls(**made, sections=tuple(sections), others=tuple(others))

    def fill(self, rec: GpuRecord, texts: list[str], line: int, clean: Callable[[str], str],
             other: Callable[[GpuRecord, Any, str, int], None]) -> None:
        """The record of a block whose values are ``texts`` and GPU line ``line``; ``clean``:
        what a value is read as (str.strip, str.rstrip); ``other``: reads an ``others`` value."""
        at = line.__add__
        get, belows, keys = self.keys
        if get is not None:
            rec.values.update(zip(keys, zip(map(clean, get(texts)), map(at, belows))))
        for key, below in self.sections:
            rec.values[key] = ("", line + below)
        get, belows, names = self.reasons
        if get is not None:
            rec.reasons.extend((reason, raw, ln, section) for (reason, section), raw, ln
                               in zip(names, map(clean, get(texts)), map(at, belows)))
        get, belows, names = self.counters
        if get is not None:
            rec.counters.update(zip(names, zip(map(clean, get(texts)), map(at, belows))))
        get, belows, names = self.ecc
        if get is not None:
            rec.ecc.extend((*c, raw, ln) for c, raw, ln in zip(names, map(clean, get(texts)), map(at, belows)))
        for what, i, below, text in self.others:
            other(rec, what, clean(texts[i]) if i >= 0 else text, line + below)


def _getter(numbers: list[int]) -> Callable | None:
    """itemgetter of ``numbers`` that always gives a tuple (None where there are none)."""
    if not numbers:
        return None
    if len(numbers) == 1:
        n = numbers[0]
        return lambda texts: (texts[n],)
    return itemgetter(*numbers)


# ---- value readers -------------------------------------------------------------------

#: what nvidia-smi prints for a value it cannot read (compared lowercased, brackets stripped)
NOT_AVAILABLE = frozenset({
    "n/a", "not supported", "unknown", "unknown error", "not found", "none",
    "requested functionality has been deprecated", "insufficient permissions",
    "gpu requires reset", "gpu is lost", "not available",
})
#: of those, the ones that say the query FAILED (NVML_ERROR_UNKNOWN, _GPU_IS_LOST,
#: _RESET_REQUIRED: nvmlErrorString's texts), not that the GPU lacks the field: no value, and
#: never silence (a parse problem naming the line, so the verdict cannot be healthy)
QUERY_FAILED = frozenset({"unknown error", "gpu requires reset", "gpu is lost"})
#: nvmlErrorString(NVML_ERROR_OPERATING_SYSTEM), printed for one field: the operating system refused nvidia-smi that
#: query (WSL2's /dev/dxg bridge, a device cgroup, a sandbox's GPU proxy without the call: google/gvisor pull request
#: 10676's 'ECC Mode / Current : GPU access blocked by the operating system' under runsc --nvproxy). The GPU was not
#: asked, so no fault of it is shown, and what the field holds was not checked: a capture limit (never healthy), not
#: the GPU's error nor silence
OS_REFUSED = "gpu access blocked by the operating system"
# "78.82 W", "32 C", "-8 C", "16x", "404450 us", "3072 bank(s)", "5"
_NUMBER = re.compile(r"^(-?\d+(?:\.\d+)?)\s*(?:x|W|C|us|bank\(s\)|MiB|%|MHz)?$")
_BOOL = {"enabled": True, "disabled": False, "yes": True, "no": False,
         "active": True, "not active": False}
#: the same words as nvidia-smi prints them ("Enabled", "Not Active"): read without lowering
_BOOL_AS_PRINTED = {k.title(): v for k, v in _BOOL.items()}
#: the sub-reasons nvidia-smi prints under "HW Slowdown" (R410+; "N/A" where the GPU or driver gives none)
_HW_SUB_REASONS = frozenset({"hw_thermal_slowdown", "hw_power_brake_slowdown"})
#: the reasons gpu_clock_reasons holds, one field each (NVML's mask, named as the readers name them)
_SUMMARY_REASONS = tuple(n for n in GpuClockReasons.model_fields if n not in GpuFact.model_fields and n != "section_name")
#: the ECC counters' locations of the device memory: 'DRAM Uncorrectable' (R510+), 'Double Bit' / 'Device Memory' (older)
_DEVICE_MEMORY = frozenset({"dram", "device_memory"})
#: the reasons that say whether the hardware or heat holds clocks down: a block without any of them claims nothing of
#: throttling. SW Power Cap alone is not one: it is the driver keeping to the power limit, and nvidia-smi prints it
#: right before HW Slowdown, so a block that ends at it was cut before the reasons of a fault (session 23's fragment
#: audit: dev corpus 007's 'Clocks Throttle Reasons' to 'SW Power Cap : Not Active' read HEALTHY, 'checked: power_thermal')
_POWER_THERMAL_REASONS = frozenset({"hw_slowdown", "sw_thermal_slowdown", *_HW_SUB_REASONS})
#: and the block must be shown past SW Thermal Slowdown: nvidia-smi -q prints, in every branch that has it (R384+),
#: Idle, Applications Clocks Setting, SW Power Cap, HW Slowdown (with HW Thermal / HW Power Brake Slowdown, R410+),
#: Sync Boost, SW Thermal Slowdown, Display Clock Setting; older drivers end at 'Unknown' and have no SW Thermal
#: Slowdown. A block cut after HW Slowdown or Sync Boost hides the driver's own slowdown for heat (session 23's audit:
#: 'Clocks Throttle Reasons' to 'HW Power Brake Slowdown : Not Active' read HEALTHY, 'checked: power_thermal').
#: Seen past it: SW Thermal Slowdown itself, a reason printed after it, or any other line of the GPU record at or
#: below the last reason (the next section, the reasons' counters; a query's row, an XML block that goes on)
_PAST_SW_THERMAL = frozenset({"sw_thermal_slowdown", "display_clock_setting", "unknown"})


def _shown_past_sw_thermal(rec: GpuRecord) -> bool:
    """Whether the record's clock reasons are shown as far as SW Thermal Slowdown (_PAST_SW_THERMAL)."""
    if any(r[0] in _PAST_SW_THERMAL for r in rec.reasons):
        return True
    last = max(r[2] for r in rec.reasons)
    return (any(v[1] >= last for v in rec.values.values()) or any(c[1] >= last for c in rec.counters.values())
            or any(e[4] >= last for e in rec.ecc))


def _recovery_action(raw: str | None) -> str | None:
    """"None" is the healthy reading (kept: positive evidence); N/A and the like say nothing."""
    if raw is None or (_na(raw) and raw.strip().lower() != "none"):
        return None
    return raw


def _na(raw: str) -> bool:
    return raw.strip().strip("[]").lower() in NOT_AVAILABLE


class _Reader:
    """Reads record values; reports garbage through the builder and returns None."""

    def __init__(self, builder: FactBuilder, values: dict[str, tuple[str, int]]):
        self.b, self.v = builder, values

    def has(self, *keys: str) -> bool:
        return any(k in self.v for k in keys)

    def line(self, *keys: str) -> int | None:
        for k in keys:
            if k in self.v:
                return self.v[k][1]
        return None

    def text(self, key: str) -> str | None:
        if (v := self.v.get(key)) is None:
            return None
        if (known := _TEXTS.get(v[0], _MISS)) is not _MISS:  # read before without a problem
            return known
        if _failed(self.b, *v, what=key):
            return None
        known = None if _na(v[0]) else v[0].strip()
        if len(_TEXTS) < _READ_MAX:
            _TEXTS[v[0]] = known
        return known

    def raw(self, key: str) -> str | None:
        return self.v[key][0].strip() if key in self.v else None

    def num(self, key: str, what: str, integer: bool = True) -> float | int | None:
        if key not in self.v:
            return None
        return read_number(self.b, *self.v[key], what=what, integer=integer)

    def flag(self, key: str, what: str) -> bool | None:
        if (v := self.v.get(key)) is None:
            return None
        if (value := _BOOL_AS_PRINTED.get(v[0])) is not None:  # read_bool's first step
            return value
        return read_bool(self.b, *v, what=what)


def _failed(b: FactBuilder, raw: str, line: int, what: str) -> bool:
    """A value nvidia-smi could not query because the query failed: reported, and True."""
    low = raw.strip().strip("[]").lower()
    if low == OS_REFUSED:
        b.limit(line, "query_refused", f"{what}: the operating system refused nvidia-smi the query ({raw.strip()!r}, "
                                       "NVML_ERROR_OPERATING_SYSTEM): not read")
        return True
    if low not in QUERY_FAILED:
        return False
    b.error(line, f"{what}: nvidia-smi could not read it ({raw.strip()!r}): the driver failed to query the GPU")
    return True


#: raw value -> what read_number made of it without a problem to report ("32 C" -> 32, "N/A" ->
#: None), integers and numbers apart: a fleet's readings repeat, each is read once a process
_READ_INT: dict[str, int | None] = {}
_READ_FLOAT: dict[str, float | None] = {}
_READ_MAX = 4096
#: the most digits a reading may have: nvidia-smi's largest counters (energy in mJ, bytes) have 20; Python's int() refuses
#: a string of more than 4,300 (sys.get_int_max_str_digits), which a mangled file can hold (tests/test_fuzz_parsers.py)
_MAX_DIGITS = 40
_MISS = object()
#: raw value -> what _Reader.text made of it without a problem to report (" N/A" -> None)
_TEXTS: dict[str, str | None] = {}


def read_number(b: FactBuilder, raw: str, line: int, what: str, integer: bool = True):
    known = _READ_INT if integer else _READ_FLOAT
    if (value := known.get(raw, _MISS)) is not _MISS:
        return value
    if len(raw) > _MAX_DIGITS and sum(c.isdigit() for c in raw) > _MAX_DIGITS:
        b.error(line, f"{what}: expected {'an integer' if integer else 'a number'}, got {len(raw):,} characters")
        return None  # no reading has so many digits; int() refuses a string of more than 4,300 (a mangled file)
    if raw.isdecimal() and raw.isascii():  # "5", most readings: int() reads it as _NUMBER would
        value = int(raw) if integer else float(raw)
    # "32 C", "78.82 W": no word nvidia-smi prints for a value it lacks begins with a digit
    elif not raw[:1].isdigit() and _failed(b, raw, line, what):
        return None  # reported (each time it is read: not kept)
    elif not raw[:1].isdigit() and _na(raw):
        value = None
    else:
        m = _NUMBER.match(raw.strip())
        if not m or (integer and "." in m[1]):
            b.error(line, f"{what}: expected {'an integer' if integer else 'a number'}, got {raw.strip()!r}")
            return None
        value = int(m[1]) if integer else float(m[1])
    if len(known) < _READ_MAX:
        known[raw] = value
    return value


def read_bool(b: FactBuilder, raw: str, line: int, what: str) -> bool | None:
    if (value := _BOOL_AS_PRINTED.get(raw)) is not None:
        return value
    if _failed(b, raw, line, what) or _na(raw):
        return None
    value = _BOOL.get(raw.strip().lower())
    if value is None:
        b.error(line, f"{what}: expected Enabled/Disabled, Yes/No or Active/Not Active, got {raw.strip()!r}")
    return value


# ---- record -> facts -------------------------------------------------------------------
# Key tables, built once (emit_gpu_facts runs for every GPU of every node: no key strings
# or error texts are built per GPU; an error text only where a value is reported)

_TEMPS = ("gpu", "memory", "shutdown", "slowdown", "max_operating", "max_memory", "tlimit",
          "shutdown_tlimit", "slowdown_tlimit", "max_operating_tlimit", "max_memory_tlimit")
#: (fact field, record key, what an error names)
_TEMP_FIELDS = tuple(("gpu_temp_c" if t == "gpu" else "memory_temp_c" if t == "memory" else f"{t}_c",
                      f"temp.{t}", f"temperature {t}") for t in _TEMPS)
_TEMP_KEYS = tuple(f"temp.{t}" for t in _TEMPS)
_TEMP_LINE = ("temp.gpu", *_TEMP_KEYS)
_POWER = tuple((k, f"power.{k}", f"power {k}")
               for k in ("draw", "instant", "average", "limit", "current_limit", "requested_limit",
                         "enforced_limit", "default_limit", "min_limit", "max_limit"))
_POWER_KEYS = tuple(k for _, k, _ in _POWER)
_ECC_MODE = ("ecc_mode.current", "ecc_mode.pending")
_REPAIR = ("ecc.channel_repair", "ecc.tpc_repair", "ecc.unrepairable")
_RETIRED = ("retired.sbe", "retired.dbe", "retired.pending_blacklist", "retired.pending_retirement")
_RETIRED_LINE = ("retired.section", *_RETIRED)
_REMAP_COUNTS = tuple((f, f"remap.{k}", f"Remapped Rows {k}") for f, k in (
    ("correctable_rows", "corr"), ("uncorrectable_rows", "unc"), ("inactive_correctable_rows", "corr_inactive"),
    ("inactive_uncorrectable_rows", "unc_inactive"), ("bank_max", "bank_max"), ("bank_high", "bank_high"),
    ("bank_partial", "bank_partial"), ("bank_low", "bank_low"), ("bank_none", "bank_none")))
_REMAP_KEYS = (*(k for _, k, _ in _REMAP_COUNTS), "remap.pending", "remap.failure")
_REMAP_LINE = ("remap.pending", *_REMAP_KEYS)
#: (fact field, record key, what an error names); replay and rollover renamed below
_PCIE = tuple((k, f"pcie.{k}", f"PCIe {k}") for k in (
    "gen_current", "gen_max", "gen_device_current", "gen_device_max", "gen_host_max",
    "width_current", "width_max", "replay", "rollover"))
_PCIE_KEYS = tuple(k for _, k, _ in _PCIE)
_CLOCKS = tuple((f, k, f"clock {k}") for f, k in (
    ("graphics_mhz", "clocks.graphics"), ("sm_mhz", "clocks.sm"), ("memory_mhz", "clocks.memory"),
    ("app_graphics_mhz", "clocks.app_graphics"), ("app_memory_mhz", "clocks.app_memory"),
    ("default_app_graphics_mhz", "clocks.default_app_graphics"),
    ("default_app_memory_mhz", "clocks.default_app_memory"),
    ("max_graphics_mhz", "clocks.max_graphics"), ("max_memory_mhz", "clocks.max_memory")))
_CLOCK_KEYS = tuple(k for _, k, _ in _CLOCKS)
_USAGE = ("usage.util", "usage.processes", "usage.no_processes")
#: Platform Info's rows -> GpuPlatform's fields; the first four place the GPU (N/A on boards that are not rack-scale)
_PLATFORM = {"platform.chassis_serial": "chassis_serial", "platform.slot": "slot_number", "platform.tray": "tray_index",
             "platform.host_id": "host_id", "platform.peer_type": "peer_type", "platform.module_id": "module_id",
             "platform.fabric_guid": "fabric_guid"}
_PLATFORM_KEYS = tuple(_PLATFORM)
_PLACES = ("chassis_serial", "slot_number", "tray_index", "host_id")
_FABRIC = ("fabric.state", "fabric.status", "fabric.clique_id", "fabric.cluster_uuid", "fabric.health_summary")

def _first(read: dict[str, float | int | None], *names: str) -> float | int | None:
    """The first of ``names`` whose reading is not None, else None."""
    return next((read[n] for n in names if read[n] is not None), None)


def _has(values: dict[str, tuple[str, int]], keys: tuple[str, ...]) -> bool:
    return not values.keys().isdisjoint(keys)


def _line(values: dict[str, tuple[str, int]], keys: tuple[str, ...]) -> int | None:
    for k in keys:
        if (v := values.get(k)) is not None:
            return v[1]
    return None


def _nums(b: FactBuilder, values: dict[str, tuple[str, int]], table: tuple[tuple[str, str, str], ...],
          integer: bool = True) -> dict[str, float | int | None]:
    """{fact field: the number its record key holds, else None} for (field, key, what) rows."""
    out: dict[str, float | int | None] = {}
    known = _READ_INT if integer else _READ_FLOAT  # read_number's first step, without a call
    for name, key, what in table:
        if (v := values.get(key)) is None:
            out[name] = None
        elif (n := known.get(v[0], _MISS)) is not _MISS:
            out[name] = n
        else:
            out[name] = read_number(b, v[0], v[1], what, integer)
    return out


def emit_gpu_facts(b: FactBuilder, rec: GpuRecord, node: str | None = None) -> None:
    values = rec.values
    if not values and not rec.reasons and not rec.ecc and rec.pci_bus_id.startswith("unknown-"):
        # a section header pasted alone ("    Remapped Rows", "    Clocks Event Reasons"): no GPU
        # named, nothing read of one; an empty gpu_info would claim the GPU checked (a false HEALTHY)
        return
    r = _Reader(b, values)
    bus = rec.pci_bus_id
    b.add(GpuInfo, rec.line, node=node, pci_bus_id=bus, index=rec.index,
          name=r.text("info.name"), uuid=r.text("info.uuid"), serial=r.text("info.serial"),
          vbios=r.text("info.vbios"), driver_version=rec.driver_version,
          cuda_version=rec.cuda_version, taken_at=rec.taken_at, product_architecture=r.text("info.arch"),
          persistence_mode=r.flag("info.persistence", "Persistence Mode"),
          recovery_action=_recovery_action(r.raw("info.recovery_action")),
          reset_required=r.flag("info.reset_required", "Reset Required"),
          drain_and_reset_recommended=r.flag("info.drain_and_reset", "Drain and Reset Recommended"))

    if (lic := values.get("info.vgpu_license")) is not None:
        b.add(GpuVgpuLicense, lic[1], node=node, pci_bus_id=bus, status=vgpu_license_status(lic[0]),
              license_text=lic[0])
    _emit_state(b, rec, r, node)


#: nvidia-smi's license states (NVML nvmlVgpuLicenseInfo_t.currentState, printed as DCGM's
#: ConvertNvmlGridLicenseStateToString prints them: "Unlicensed (Unrestricted)", "Unlicensed (Restricted)",
#: "Unlicensed", "Licensed"; nvidia-smi adds the expiry: "Licensed (Expiry: 2026-7-7 16:1:44 GMT)")
_LICENSE = re.compile(r"^(?P<state>Licensed|Unlicensed)(?: \((?P<how>Restricted|Unrestricted)\))?(?:\s|\(|$)")


def vgpu_license_status(raw: str) -> str:
    """``Unlicensed (Restricted)`` -> ``unlicensed_restricted``; ``Licensed (Expiry: ...)`` -> ``licensed``."""
    m = _LICENSE.match(raw.strip())
    if m is None:
        return "unknown"
    return m["state"].lower() + (f"_{m['how'].lower()}" if m["how"] else "")


#: the facts of a GPU's state but gpu_info, by what they are read from (_state_key): a fleet
#: node's GPUs print the same readings on the same lines below their GPU line (~45 us a GPU
#: of reading values and building keywords, against ~10 us to make the key)
_STATES: dict[tuple, tuple[list[tuple[type, int, dict[str, Any]]], dict]] = {}
_STATES_KEPT = 256
_RAW, _AT = itemgetter(0), itemgetter(1)
_REASON, _REASON_AT = itemgetter(0, 1, 3), itemgetter(2)
_ECC, _ECC_AT = itemgetter(0, 1, 2, 3), itemgetter(4)
#: record keys read by gpu_info alone that differ GPU by GPU
_PER_GPU = ("info.uuid", "info.serial")


def _state_key(rec: GpuRecord) -> tuple:
    """What the facts of :func:`_state_readings` are made of: the record's keys, values and lines
    below its GPU line, but those only gpu_info reads that differ GPU by GPU (and the index:
    gpu_usage's is set where the readings are added)."""
    values, below = rec.values, rec.line.__rsub__  # line - rec.line
    keys = tuple(values)
    raws = list(map(_RAW, values.values()))
    for k in _PER_GPU:
        if k in values:
            raws[keys.index(k)] = None
    reasons, ecc, counters = rec.reasons, rec.ecc, rec.counters
    return (keys, tuple(raws), tuple(map(below, map(_AT, values.values()))),
            tuple(map(_REASON, reasons)), tuple(map(below, map(_REASON_AT, reasons))),
            tuple(map(_ECC, ecc)), tuple(map(below, map(_ECC_AT, ecc))),
            tuple(counters), tuple(map(_RAW, counters.values())), tuple(map(below, map(_AT, counters.values()))))


def _emit_state(b: FactBuilder, rec: GpuRecord, r: _Reader, node: str | None) -> None:
    """The facts of a GPU's state but gpu_info, read from the record, or as read before from a
    record whose state is the same (_state_key: the same facts on lines as far below the GPU
    line); readings that reported a problem are not kept."""
    key = _state_key(rec)
    if (state := _STATES.get(key)) is None:
        errors = len(b.result.errors)
        state = (_state_readings(b, rec, r), {})  # (the readings, FactBuilder.add_rows's memo of them)
        if len(b.result.errors) == errors:
            if len(_STATES) >= _STATES_KEPT:
                _STATES.clear()
            _STATES[key] = state
    b.add_rows(state[0], rec.line, node, state[1], {GpuUsage: {"index": rec.index}}, pci_bus_id=rec.pci_bus_id)


def _state_readings(b: FactBuilder, rec: GpuRecord, r: _Reader) -> list[tuple[type, int, dict[str, Any]]]:
    """(fact class, its line below the GPU line, its fields but the bus id) of each fact of the
    record's state but gpu_info, in the order they are added."""
    values, base = rec.values, rec.line
    out: list[tuple[type, int, dict[str, Any]]] = []

    def add(cls: type, line: int, **fields: Any) -> None:
        out.append((cls, line - base, fields))

    counters = rec.counters
    # HW Slowdown's sub-reasons, when the block gives one as Active / Not Active (not "N/A")
    subs = any(r in _HW_SUB_REASONS and str(raw).strip().lower() in _BOOL for r, raw, _, _ in rec.reasons)
    power_thermal = any(r[0] in _POWER_THERMAL_REASONS for r in rec.reasons) and _shown_past_sw_thermal(rec)
    states: dict[str, bool | None] = dict.fromkeys(_SUMMARY_REASONS)
    for reason, raw, line, section in rec.reasons:
        active = _BOOL_AS_PRINTED.get(raw)  # read_bool's first step, without its error text
        if active is None:
            active = read_bool(b, raw, line, f"clock reason {reason}")
            if active is None:
                continue
        if (counter := counters.get(reason)) is None:
            us = None
        elif (us := _READ_INT.get(counter[0], _MISS)) is _MISS:  # read_number's first step
            us = read_number(b, *counter, what=f"{reason} counter")
        add(GpuClockReason, line, reason=reason, active=active, counter_us=us, section_name=section,
            sub_reasons_read=subs if reason == "hw_slowdown" else None, power_thermal_read=power_thermal)
        if reason in states:
            states[reason] = active
    if rec.reasons:  # the block's reasons as one summary (what rules read of a reason Not Active)
        first = rec.reasons[0]
        add(GpuClockReasons, first[2], section_name=first[3], **states)

    if _has(values, _TEMP_KEYS):
        add(GpuTemperature, _line(values, _TEMP_LINE), **_nums(b, values, _TEMP_FIELDS))

    if _has(values, _POWER_KEYS):
        power = _nums(b, values, _POWER, integer=False)  # None where the key is absent
        add(GpuPower, r.line("power.section") or _line(values, _POWER_KEYS),
            draw_w=_first(power, "instant", "draw", "average"), average_draw_w=power["average"],
            current_limit_w=_first(power, "current_limit", "limit"),
            requested_limit_w=_first(power, "requested_limit", "limit"),
            enforced_limit_w=_first(power, "enforced_limit", "current_limit"),
            default_limit_w=power["default_limit"], min_limit_w=power["min_limit"],
            max_limit_w=power["max_limit"])

    if _has(values, _ECC_MODE):
        add(GpuEccMode, _line(values, _ECC_MODE), current_enabled=r.flag("ecc_mode.current", "ECC Mode Current"),
            pending_enabled=r.flag("ecc_mode.pending", "ECC Mode Pending"))

    # an ECC Errors block cut after its SRAM counters (nvidia-smi prints 'DRAM Uncorrectable' after them) says nothing of
    # the device memory (session 23's fragment audit: h200_ecc_dbe_volatile.txt's 'ECC Errors' to 'SRAM Uncorrectable
    # SEC-DED : 0' read HEALTHY, 'checked: gpu_memory'; its 'DRAM Uncorrectable : 2' was the next line but one)
    dram = any(e[1] == "uncorrectable" and e[2] in _DEVICE_MEMORY for e in rec.ecc)
    for scope, etype, location, raw, line in rec.ecc:
        count = int(raw) if raw.isdecimal() and raw.isascii() and len(raw) <= _MAX_DIGITS else \
            read_number(b, raw, line, f"ECC {scope} {etype} {location}")  # the error text only where one may be
        add(GpuEccCount, line, scope=scope, error_type=etype, location=location, count=count, device_memory_read=dram)
    if "ecc.threshold" in values:
        add(GpuEccThreshold, values["ecc.threshold"][1],
            sram_threshold_exceeded=r.flag("ecc.threshold", "SRAM Threshold Exceeded"))
    if _has(values, _REPAIR):
        add(GpuMemoryRepair, _line(values, _REPAIR),
            channel_repair_pending=r.flag("ecc.channel_repair", "Channel Repair Pending"),
            tpc_repair_pending=r.flag("ecc.tpc_repair", "TPC Repair Pending"),
            unrepairable_memory=r.flag("ecc.unrepairable", "Unrepairable Memory"))

    if _has(values, _RETIRED):
        pending = r.flag("retired.pending_blacklist", "Pending Page Blacklist")
        if pending is None:
            pending = r.flag("retired.pending_retirement", "Pending Page Retirement")
        sbe, dbe = r.num("retired.sbe", "Retired Pages Single Bit ECC"), r.num("retired.dbe", "Retired Pages Double Bit ECC")
        if sbe is not None or dbe is not None or pending is not None:  # N/A throughout (H100, H200: rows are remapped instead): no reading
            add(GpuRetiredPages, _line(values, _RETIRED_LINE), sbe_pages=sbe, dbe_pages=dbe,
                retired_pages=None if sbe is None or dbe is None else sbe + dbe, pending=pending)

    if _has(values, _REMAP_KEYS):
        nums = _nums(b, values, _REMAP_COUNTS)
        # the spares told: the histogram read, or no row remapped (both counts shown 0, the inactive ones 0 or not printed)
        unused = (nums["correctable_rows"] == 0 and nums["uncorrectable_rows"] == 0
                  and nums["inactive_correctable_rows"] in (0, None) and nums["inactive_uncorrectable_rows"] in (0, None))
        add(GpuRowRemap, _line(values, _REMAP_LINE), pending=r.flag("remap.pending", "Remapped Rows Pending"),
            failure=r.flag("remap.failure", "Remapping Failure Occurred"), banks_known=nums["bank_none"] is not None or unused,
            **nums)

    if _has(values, _PCIE_KEYS):
        nums = _nums(b, values, _PCIE)
        nums["replay_counter"], nums["replay_rollover"] = nums.pop("replay"), nums.pop("rollover")
        cur, top = nums["width_current"], nums["width_max"]
        nums["width_below_max"] = None if cur is None or top is None else cur < top
        add(GpuPcieLink, _line(values, _PCIE_KEYS), **nums)

    if _has(values, _CLOCK_KEYS):
        mhz = _nums(b, values, _CLOCKS)
        app, default = (mhz["app_graphics_mhz"], mhz["app_memory_mhz"]), (mhz["default_app_graphics_mhz"], mhz["default_app_memory_mhz"])
        set_ = None if None in app or None in default else app != default
        add(GpuClocks, _line(values, _CLOCK_KEYS), app_clocks_set=set_, **mhz)

    if _has(values, _USAGE):
        procs = r.num("usage.processes", "processes") if "usage.processes" in values else (0 if "usage.no_processes" in values else None)
        add(GpuUsage, _line(values, _USAGE), index=rec.index, utilization_pct=r.num("usage.util", "GPU utilization"),
            compute_processes=procs)

    if _has(values, _PLATFORM_KEYS):
        place = {f: r.text(k) for k, f in _PLATFORM.items()}
        if any(place[f] for f in _PLACES):  # a GB200 / GB300 tray's GPU (an H200 prints them N/A, its Module Id alone)
            add(GpuPlatform, _line(values, _PLATFORM_KEYS), **place)

    if _has(values, _FABRIC):
        add(GpuFabric, _line(values, _FABRIC), state=r.raw("fabric.state"), status=r.raw("fabric.status"),
            clique_id=r.text("fabric.clique_id"), cluster_uuid=r.text("fabric.cluster_uuid"),
            health_summary=r.text("fabric.health_summary"),
            # a Fabric section shown without its Health outside a whole GPU block is a grep or a paste cut before it (session
            # 23's fragment audit: fragment_fabric_grep_C3_unhealthy.txt's 'Fabric' to 'ClusterUUID' read HEALTHY, 'checked:
            # nvlink'; 'Health' / 'Summary : Unhealthy' were the next lines); -q -d has no fabric filter
            health_shown=True if "fabric.health_summary" in values else (None if "info.name" in values else False))
    return out


def ecc_counter(scope: str, words: list[str]) -> tuple[str, str, str] | None:
    """("volatile", ["sram", "uncorrectable", "sec-ded"]) -> ("volatile", "uncorrectable", "sram_secded");
    older layout: ("aggregate", ["single bit", "device memory"]) -> (..., "correctable", "device_memory")."""
    if scope not in ("volatile", "aggregate"):
        return None
    if words[0] in ("single bit", "single_bit", "double bit", "double_bit") and len(words) == 2:
        etype = "correctable" if words[0].startswith("single") else "uncorrectable"
        loc = words[1].replace(" ", "_")
        return scope, etype, {"texture_shm": "texture_shared"}.get(loc, loc)
    if len(words) != 1:
        return None
    parts = re.split(r"[ _]", words[0])
    for etype in ("uncorrectable", "correctable"):
        if etype in parts:
            i = parts.index(etype)
            loc = "_".join(p.replace("-", "") for p in parts[:i] + parts[i + 1:])
            return (scope, etype, loc) if loc else None
    return None


@lru_cache(maxsize=1024)
def ecc_counter_of(path: tuple[str, ...]) -> tuple[str, str, str] | None:
    """ecc_counter of a path below the ECC errors section (``(ecc errors, scope, words...)``): one
    regex split per distinct path, not per GPU."""
    return ecc_counter(path[1], list(path[2:]))

"""rasdaemon's record of the host's hardware errors as ``ras-mc-ctl --summary`` and ``ras-mc-ctl --errors``
print it: the memory controller's (EDAC) errors, PCIe AER events and machine checks the daemon stored.

The forms, from rasdaemon's util/ras-mc-ctl.in (0.6 to 0.8.5; ``summary`` and ``errors``), each section a
header line and its rows, or one ``No ... errors.`` line when the daemon stored none::

    Memory controller events summary:
    \\t$err_type on DIMM Label(s): '$label' location: $mc:$top:$mid:$low errors: $count
    PCIe AER events summary:
    \\t$count $err_type errors: $msg
    MCE records summary:
    \\t$count $msg errors

    Memory controller events:
    $id $time $count $type error(s): $msg at $label location: $mc:$top:$mid:$low, addr $addr, grain ...
    PCIe AER events:
    $id $time $devname $type error: $msg
    MCE events:
    $id $time error: $msg, CPU $cpu, bank $bank_name, ...

``$err_type`` of a memory controller event is ras-mc-handler.c's ``Corrected``, ``Uncorrected``, ``Fatal`` or
``Info``; of an AER event ras-aer-handler.c's ``Corrected``, ``Uncorrected (Non-Fatal)`` or ``Uncorrected
(Fatal)``, its ``$msg`` the status bits' names (``aer_cor_errors``, ``aer_uncor_errors``: ``Receiver Error``,
``Bad TLP``, ``Completion Timeout``, ...) and a ``TLP Header: ...`` where the event had one; an MCE's
``$msg`` the decoder's text (mce-amd.c's ``Corrected error, no action required.``, ``Uncorrected, software
containable error.``; Intel's bank names, its ``mci`` status ``Corrected_error`` / ``Uncorrected_error``, mce-intel.c).
Real sample lines::

    PCIe AER events summary:
            2 Corrected errors: Bad DLLP
            1 Uncorrected (Non-Fatal) errors: Completion Timeout                     (mchehab/rasdaemon#228)
    112 2023-05-31 10:06:19 -0400 error: MEMORY CONTROLLER RD_CHANNEL0_ERR     (andikleen/mcelog#116: wrapped, the
    Transaction: Memory read error MemCtrl:  Corrected read error bank: 0x1     section's header cut; read as an MCE
    ... ecc mode:  SDDC, mcg mcgstatus=0, mci Corrected_error,                 row by its mcg / mci fields)

Facts: ``host_hardware_error`` (source ``edac``, ``corrected`` from the type, ``count``, ``memory_controller``
``MC<mc>``, ``location`` the DIMM label or the location) per memory controller row of type Corrected,
Uncorrected or Fatal (Info rows are read, no fact); ``host_hardware_error`` (source ``mce``, ``corrected`` where
the decoder's text says ``Corrected error`` / ``Uncorrected error``) per MCE row; ``pcie_aer_error`` per AER
row: ``severity`` from the type, ``errors`` the bits' names, ``error_type`` the layer the kernel's aer.c gives
those bits (Receiver Error: Physical Layer; Bad TLP, Bad DLLP, RELAY_NUM Rollover, Replay Timer Timeout, Data
Link Protocol, Surprise Link Down: Data Link Layer; the rest: Transaction Layer), ``device`` the device --errors
names and its ``pci_bus_id`` (a summary row names none: ``unnamed device``, no address: a finding names the node only), ``multiple`` when a summary row counts more than one. The
``No ... errors.`` lines and the other sections' rows (ARM, NVIDIA, CXL, devlink, disk, extlog, memory failure,
signal) are read and make no fact: what the host's memory, PCIe and CPU errors mean is for the rules
(host_memory_corrected_errors, host_memory_uncorrected_error, host_machine_check_logged, pcie_aer_*). A row of a
section that is not in one of these forms (a pasted row with markdown around it) is not read.
"""
from __future__ import annotations

import re

from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.kernel import HostHardwareError, PcieAerError  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "ras_mc_ctl"

# Memory controller events summary:   PCIe AER events:   MCE records summary:   CXL DRAM events summary:
_SECTION = re.compile(r"^(?P<name>[A-Z][A-Za-z ]{1,40}?) (?:events|records)(?: summary)?:\s*$")
# No Memory errors.   No PCIe AER errors.   No MCE errors.   No devlink errors.   No SIGNAL.
_NONE = re.compile(r"^No [A-Za-z ]{1,40}?(?: errors)?\.\s*$")
# \tCorrected on DIMM Label(s): 'DIMM_A1' location: 0:0:0:-1 errors: 12
_MC_SUMMARY = re.compile(r"^\s+(?P<type>Corrected|Uncorrected|Fatal|Info) on DIMM Label\(s\): '(?P<label>[^'\n]{0,120})' "
                         r"location: (?P<loc>[-\d:]{1,40}) errors: (?P<count>\d+)\s*$")
_TIME = r"(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: [+-]\d{4})?|\S{1,40})"
# 1 2024-01-02 03:04:05 +0000 1 Corrected error(s): memory read error at DIMM_A1 location: 0:0:0:-1, addr 0x1000, ...
_MC_EVENT = re.compile(r"^\d+ " + _TIME + r" (?P<count>\d+) (?P<type>Corrected|Uncorrected|Fatal|Info) error\(s\): "
                       r"(?P<msg>.{0,200}?) at (?P<label>\S{0,120}) location: (?P<loc>[-\d:]{1,40})")
_AER_TYPE = r"(?P<type>Corrected|Uncorrected \(Non-Fatal\)|Uncorrected \(Fatal\))"
# \t2 Corrected errors: Bad DLLP      \t1 Uncorrected (Non-Fatal) errors: Completion Timeout      (mchehab/rasdaemon#228)
_AER_SUMMARY = re.compile(r"^\s+(?P<count>\d+) " + _AER_TYPE + r" errors:(?: (?P<msg>[^\n]{0,300}))?$")
# 1 2023-10-27 10:00:00 +0200 0000:00:1c.5 Corrected error: Receiver Error
_AER_EVENT = re.compile(r"^\d+ " + _TIME + r" (?P<dev>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) "
                        + _AER_TYPE + r" error: (?P<msg>[^\n]{0,300})$")
# \t1 Corrected error, no action required. errors      (summary(): "\t$count $msg errors", AMD's decoder text)
_MCE_SUMMARY = re.compile(r"^\s+(?P<count>\d+) (?P<msg>\S[^\n]{0,200}?) errors\s*$")
# 1 2024-12-19 03:52:38 +0000 error: Corrected error, no action required., CPU 2, bank Unified Memory Controller (bank=17), ...
_MCE_EVENT = re.compile(r"^\d+ " + _TIME + r" error: (?P<msg>[^\n]{1,2000})$")
# [root@localhost ~]# ras-mc-ctl --errors      $ sudo ras-mc-ctl --summary      (the command at a shell prompt)
_PROMPT = re.compile(r"^[^\n]{0,80}?[#$] ?(?:sudo )?ras-mc-ctl --(?:errors|summary)[ \t]*$")
#: an MCE row's own fields (ras-mc-ctl.in prints them for mce_record rows only): a row pasted without its
#: section's header is an MCE row when they follow it
_MCE_FIELDS = re.compile(r"\bmcg mcgstatus=|, mcgcap=0x")
# , mci Corrected_error,      , mci Error_overflow Uncorrected_error      (mce-intel.c: the status's UC bit)
_MCI = re.compile(r"\bmci (?:[A-Za-z_]{1,40} ){0,4}?(?P<uc>Corrected_error|Uncorrected_error)\b")
_DETECT = re.compile(r"^(?:No Memory errors\.|No PCIe AER errors\.|Memory controller events(?: summary)?:"
                     r"|PCIe AER events(?: summary)?:|MCE records summary:)[ \t]*$"
                     r"|^[^\n]{0,80}?[#$] ?(?:sudo )?ras-mc-ctl --(?:errors|summary)[ \t]*$", re.M)

#: AER status bits (rasdaemon's names) -> the layer the kernel's aer.c reports them under
_PHYSICAL = ("Receiver Error",)
_DATA_LINK = ("Bad TLP", "Bad DLLP", "RELAY_NUM Rollover", "Replay Timer Timeout", "Data Link Protocol",
              "Surprise Link Down")
_SEVERITY = {"Corrected": "corrected", "Uncorrected (Non-Fatal)": "nonfatal", "Uncorrected (Fatal)": "fatal"}
_SECTIONS = {"Memory controller": "mc", "PCIe AER": "aer", "MCE": "mce"}


def detect(head: str) -> bool:
    return ("errors." in head or "events" in head or "records summary:" in head or "ras-mc-ctl --" in head) \
        and _DETECT.search(head) is not None


def _layer(bits: str) -> str | None:
    if not bits:
        return None
    if any(b in bits for b in _PHYSICAL):
        return "Physical Layer"
    if any(b in bits for b in _DATA_LINK):
        return "Data Link Layer"
    return "Transaction Layer"


def _bits(msg: str | None) -> str:
    """The status bits' names of an AER row, its TLP header left off."""
    return (msg or "").split(" TLP Header:", 1)[0].strip()


def _mce_corrected(msg: str) -> bool | None:
    """AMD's decoder text (mce-amd.c: "Corrected error, no action required.", "Uncorrected, software containable
    error.", "Uncorrected, software restartable error.", "System Fatal error."); other decoders' text says neither."""
    if msg.startswith("Corrected error"):
        return True
    if msg.startswith(("Uncorrected", "System Fatal error")):
        return False
    return None


def _mce_row(lines: list[str], n: int) -> tuple[bool, bool | None]:
    """Whether the row on line n (1-based) carries an MCE record's fields, on its line or on the lines a paste
    wrapped it onto (up to the next row, a blank line or 12 lines), and whether its ``mci`` status says
    Corrected_error (True) or Uncorrected_error (False)."""
    mce, corrected = False, None
    for i, line in enumerate(lines[n - 1:n + 11]):
        if i and (not line.strip() or _MCE_EVENT.match(line)):
            break
        mce = mce or _MCE_FIELDS.search(line) is not None
        if corrected is None and (m := _MCI.search(line)) is not None:
            corrected = m["uc"] == "Corrected_error"
    return mce, corrected


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    section: str | None = None  # mc | aer | mce | other (a section this reader reads no rows of)
    lines = artefact.lines
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if _PROMPT.match(line):
            section = None
            result.lines_used += 1
            continue
        if (s := _SECTION.match(line)) is not None:
            section = _SECTIONS.get(s["name"], "other")
            result.lines_used += 1
            continue
        if _NONE.match(line):
            section = None
            result.lines_used += 1
            continue
        if section == "mc":
            m = _MC_SUMMARY.match(line) or _MC_EVENT.match(line)
            if m is None:
                continue
            if m["type"] != "Info":
                mc = m["loc"].split(":", 1)[0]
                b.add(HostHardwareError, n, source="edac", corrected=m["type"] == "Corrected", count=int(m["count"]),
                      memory_controller=f"MC{mc}", location=m["label"] or m["loc"], message=line.strip(),
                      timestamp=m.groupdict().get("time"))
        elif section == "aer":
            m = _AER_SUMMARY.match(line) or _AER_EVENT.match(line)
            if m is None:
                continue
            bits = _bits(m["msg"])
            summary = "dev" not in m.groupdict()
            count = int(m["count"]) if summary else 1
            b.add(PcieAerError, n, device="unnamed device" if summary else m["dev"], severity=_SEVERITY[m["type"]],
                  pci_bus_id=None if summary else try_pci_bus_id(m["dev"]),
                  # a row names no driver: its device may be a GPU (the entity a finding names, as before)
                  gpu_bus_id=None if summary else try_pci_bus_id(m["dev"]),
                  error_type=_layer(bits), errors=bits or None, multiple=count > 1, message=line.strip(),
                  timestamp=None if summary else m["time"])
        elif section == "mce":
            m = _MCE_EVENT.match(line) or _MCE_SUMMARY.match(line)
            if m is None:
                continue
            msg = m["msg"].strip()
            corrected = _mce_corrected(msg)
            if corrected is None and "time" in m.groupdict():
                corrected = _mce_row(lines, n)[1]
            b.add(HostHardwareError, n, source="mce", corrected=corrected,
                  count=int(m["count"]) if "count" in m.groupdict() else None, message=line.strip(),
                  timestamp=m.groupdict().get("time"))
        elif section == "other" and line[:1] in (" ", "\t") or section == "other" and line[:1].isdigit():
            pass  # another section's row: read, no fact
        elif section is None and (m := _MCE_EVENT.match(line)) is not None and (row := _mce_row(lines, n))[0]:
            # a row pasted without its section's header ("..." for the lines before it): an MCE row by its fields
            msg = m["msg"].strip()
            corrected = _mce_corrected(msg)
            b.add(HostHardwareError, n, source="mce", corrected=row[1] if corrected is None else corrected,
                  message=line.strip(), timestamp=m["time"])
        else:
            continue
        result.lines_used += 1
    return result


#: line signatures (facts/classify.py matches every reader's in one pass)
SIGNATURES = (_DETECT,)

"""Readers' regexes stay linear on long hostile lines (issue 13; bench/redos.py --chars 30000 --limit 1
listed these, session 17): each real line still matches as before, and the long lines made from it
(repeated, with a run of blanks in its middle, its second half repeated) are searched within a bound."""
from __future__ import annotations

import importlib

import pytest

import fuzzing

# (reader module, pattern, a real line it matches, what the line gives: the named groups, the span, None: the whole line)
CASES = [
    ("dcgm_log", "_BARE", "ERROR [3468:4824] ReadNvSwitchStatusAllSwitches() returned No data is available "
     "[/workspaces/dcgm-rel_dcgm_2_0-postmerge/modules/nvswitch/DcgmModuleNvSwitch.cpp:372] "
     "[DcgmNs::DcgmModuleNvSwitch::RunOnce]",
     {"level": "ERROR", "plugin": None, "msg": "ReadNvSwitchStatusAllSwitches() returned No data is available"}),
    ("ibv_devinfo", "_ENUM", "PORT_ACTIVE (4)", {"name": "PORT_ACTIVE", "num": "4"}),
    ("ibv_devinfo", "_ENUM", "InfiniBand (0)", {"name": "InfiniBand", "num": "0"}),
    ("nvidia_smi_list", "_INDENTED", "\t Link 0: 25 GB/s", (0, 3)),
    ("nvidia_smi_table", "_GPU_ROW", "|   0  GeForce GTX 108...  Off  | 00000000:04:00.0 Off |                  N/A |",
     {"idx": "0", "name": "GeForce GTX 108...", "pers": "Off", "bus": "00000000:04:00.0", "disp": "Off", "ecc": "N/A"}),
    ("perf_script", "_HEAD", "sglang::schedul 2256971 53718.148983:     740539 cycles: ",
     {"comm": "sglang::schedul", "pid": "2256971"}),
    ("perf_script", "_HEAD", "python3 1234/1240 [012] 53718.148983:     250000 cpu-clock:pppH: ",
     {"comm": "python3", "pid": "1234"}),
    ("pidstat", "_HEAD", "05:03:29 PM   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command", None),
    ("python_packages", "_ENV_FIELD", "Clang version                : Could not collect", None),
    ("python_packages", "_ENV_FIELD", "CUDA used to build PyTorch: None", None),
    ("ulimit", "_BASH", "max locked memory       (kbytes, -l) 65536",
     {"desc": "max locked memory", "dunit": None, "unit": "kbytes", "opt": "l", "val": "65536"}),
    ("ulimit", "_BASH", "max locked memory (kb)          (-l) 64",
     {"desc": "max locked memory", "dunit": "kb", "unit": None, "opt": "l", "val": "64"}),
    ("unrecognised_text", "_EXCEPTION", "torch.OutOfMemoryError: CUDA out of memory.", (0, 23)),
    ("dcgmi_diag", "_COMMAND", "dcgmi diag --run 2 -j", {"level": "2"}),
    # test_fuzz_parsers' long_line of harvest 131's dmesg: 'Xid (' repeated with no ')' after it
    ("kernel_log", "_XID", "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.",
     {"pci": "PCI:0000:01:00", "code": "79", "rest": "GPU has fallen off the bus."}),
    ("kernel_log", "_XID", "NVRM: Xid (PCI:0000:41:00 GPU-I:05 GPU-CI:01): 79, pid=4242, name=python3, GPU has fallen off the bus.",
     {"pci": "PCI:0000:41:00 GPU-I:05 GPU-CI:01", "code": "79", "rest": "pid=4242, name=python3, GPU has fallen off the bus."}),
]


def _long_lines(line: str, chars: int = 30_000) -> list[str]:
    """bench/redos.py's variants: repeated, repeated with a blank, a run of blanks in the middle,
    the second half repeated, repeated without its last character."""
    h, n = len(line) // 2, chars // max(1, len(line) - 1) + 1
    return [v[:chars] for v in (line * n, (line + " ") * n, line[:h] + " " * chars + line[h:],
                                line[:h] + line[h:] * n, line[:-1] * n)]


@pytest.mark.parametrize("module,name,line,gives", CASES, ids=[f"{m}.{n}" for m, n, *_ in CASES])
def test_pattern_reads_its_line_and_is_linear_on_long_ones(module, name, line, gives):
    pat = getattr(importlib.import_module(f"stethoscope.facts.parsers.{module}"), name)
    m = pat.search(line)
    assert m is not None
    assert (m.groupdict() if isinstance(gives, dict) else m.span()) == (gives or (0, len(line)))
    for long in (*_long_lines(line), line[:len(line) // 3] * 3000):  # the head repeated, its end cut off
        with fuzzing.time_limit(0.5):  # each took over 1 s (most over 3 s) before they were bounded
            pat.search(long)

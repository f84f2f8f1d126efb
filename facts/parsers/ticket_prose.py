"""A ticket's prose: what a person wrote about the system in words (the fallback: runs only on
files that no other reader recognises).

An incident often comes with the reporter's sentences and little else: the versions they run,
the hardware, the settings they tried, the figure they measured and the one they expected. This
reader takes those as facts with their line (facts/kinds/prose.py), so that they are read and
quoted rather than left as an unrecognised file:

- ``stated_version``: ``NCCL 2.19.3``, ``NCCL: v2.6.4-1``, ``NCCL-2.21.5 + cuda-12.3``, ``OMPI
  4.0.2``, ``MOFED 4.7-1.0.0.1``, ``driver 535.104.05``, ``nvidia-open 595.71.05-5`` (software
  ``driver_open``: the open kernel modules), ``torch 2.1``. NCCL's own banner on a
  line of its own (``Version: NCCL version 2.5.6+cuda10.1``) is also ``nccl_version``, as NCCL's log
  gives it; versions in a sentence may be several compared, so they stay ``stated_version``.
- ``stated_platform``: ``8x H100 PCIe``, ``16 H20 GPUs``, ``2 nodes``, ``8 x 100Gbps NICs``,
  ``25G Mellanox CX5``, ``without nvswitch``, ``DGX A100``, ``a P5 from EC2``.
- ``stated_setting``: ``NCCL_SOCKET_IFNAME=enP1p1s0f0,enP1p1s0f1`` (NCCL_, UCX_, FI_ and the
  visible-devices settings) written inline.
- ``stated_figure``: ``343GBps`` measured, ``should be able to reach 460GBps`` expected,
  ``exceeds 100Gbps`` compared, ``Avg bus bandwidth : 0.176812`` (nccl-tests' footer, quoted).
- ``reported_symptom``: the sentence that says it is slow (underutilised too), below what was
  expected, hung, that a policy reports violations, or that something is not working or crashes
  (``error``); or, in a file of prose, a reporter's sentence that tells of an error (``... the
  sub-test fails with DCGM_FR_PCIE_WIDTH (error 46) even though the GPU is healthy.``): the error is the reporter's claim, quoted; unrecognised_text leaves such a line to
  this reader (the verdict inconclusive, not faulty on an error nobody explains).
- ``stated_measurement``: a row of the reporter's markdown table (a header row, its ``|---|`` delimiter row, rows)
  with a figure in it, under its columns' headers (``| data_time per batch | ~0.002 s | ~0.217 s |``), and a line the
  reporter labels before or after a change (``Before: 3 it /s, data_time 0.217``). A tool's box of dashes joined by
  ``+`` (nvidia-smi, dcgmi) is no such table; a table with a row that tells of a failure is left to unrecognised_text.
- ``reported_fault_code``: a driver's code the sentence tells was seen (``dmesg shows Xid 79 on GPU 0000:3b:00.0``;
  not one denied, asked, explained or supposed: facts/parsers/prose_codes.py), with the bus id, ``GPU <n>`` and
  ``node <name>`` it names; read by NVIDIA's catalogue as reported, not observed (rules/gpu/xid_reported_in_prose.yaml).

What a person states is a claim, not a measurement: these kinds are info (knowledge/
fact_polarity.yaml) and the reader covers nothing (knowledge/coverage.yaml), so a file of prose
neither raises a fault nor makes a verdict healthy; a reported symptom nothing judges keeps the
verdict inconclusive (rules/meta/reported_symptom_unjudged.yaml).

A file is read only when it is prose: each of its non-blank lines is a sentence (three words in a
row, or its first words wrapped: ``I followed``), a short heading (``HW setup:``, ``--- machine A
---``), markup, a link, an issue template's environment field (``OS: ...``, ``Python version:
...``), a reporter's outcome of a try (``1650 nvidia driver: Works``), a command the reporter typed
(``make -j 8 test``, bare or after ``$``), a line of the reporter's markdown table, or a line this reader took a
fact from. A file with
any other line (an unknown tool's output) is not claimed: it stays unrecognised (inconclusive),
since that line may hold what nobody read; so does a program's log line (a time stamp or a level
first), whose sentences are output. :func:`nothing_stated` says why a file of prose that states
nothing usable may be set aside (coverage ``uninformative``).

Sample content (real sentences, verbatim in fixtures/artefacts/ticket_prose, sources in its README)::

    2node16 H20 GPU allredcue performance is 343GBps（with NVL SHARP）,But theoretically it should be able to reach 460GBps
    - 8x H100 PCIe, 4x nvlink, without nvswitch in node
    They are standard DGX A100 platform, each node has 8 x 100Gbps NICs.
    Performance of OMPI 4.0.2 (from HPC_X 2.5 or source) drops ~ 6X as shown by running OSU benchmarks (5.6.2) on Zen2 AMD nodes with MOFED 4.7-1.0.0.1 installed ...

Empty input, or a file with no such phrase: not recognised.
"""
from __future__ import annotations

import re
from functools import lru_cache

from stethoscope.facts.kinds.nccl import NcclVersion  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.kinds.prose import (  # noqa: F401
    ReportedFaultCode, ReportedSymptom, StatedFigure, StatedMeasurement, StatedPlatform, StatedSetting, StatedVersion,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.kernel_log import record_lines as kernel_records
from stethoscope.facts.parsers.prose_codes import reported_codes
from stethoscope.facts.parsers.unrecognised_text import (ERROR_WORDS, FAILURE_WORDS, claimed_lines, outside_fences,
                                                          printed, shell_command, zero_counts_only)

KIND = "ticket_prose"
#: run only on files that no other parser recognised (facts/registry.py)
FALLBACK = True

_WORD_NUMBERS = {"one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "six": 6, "eight": 8, "sixteen": 16}
_COUNT = r"(?:\d{1,4}|one|single|two|three|four|six|eight|sixteen)"

# --- versions ---------------------------------------------------------------------------------
# NCCL 2.19.3 issue . Performance reduction when using NVLSTree algorithm ...          (pytorch/pytorch#117748, its title)
# NCCL: v2.6.4-1                                                                       (NVIDIA/nccl#330)
# Version: NCCL version 2.5.6+cuda10.1                                                 (NVIDIA/nccl#278)
# Test in 2 nodes, 16 H20 GPUs ,16 cx7 NICs(IB NDR) with NCCL-2.21.5 + cuda-12.3:       (NVIDIA/nccl#1244, a comment)
# Performance of OMPI 4.0.2 (from HPC_X 2.5 or source) drops ~ 6X ... with MOFED 4.7-1.0.0.1 installed ...   (openucx/ucx#4770)
_SOFTWARE = {"nccl": "nccl", "cuda": "cuda", "cudnn": "cudnn", "pytorch": "torch", "torch": "torch", "ompi": "openmpi",
             "openmpi": "openmpi", "open mpi": "openmpi", "hpc_x": "hpcx", "hpc-x": "hpcx", "hpcx": "hpcx",
             "mofed": "mofed", "mlnx_ofed": "mofed", "ofed": "mofed", "ucx": "ucx", "rdma-core": "rdma_core", "dcgm": "dcgm"}
_VERSION = re.compile(
    r"(?<![\w-])(?P<sw>NCCL|CUDA|[Cc]uda|cuDNN|PyTorch|[Tt]orch|OMPI|Open ?MPI|HPC[-_]X|HPCX|MOFED|MLNX_OFED|OFED|UCX|rdma-core|DCGM)"
    r"(?P<banner> version)?(?:\s*[:=]=?\s*|\s+(?:[Vv]ersion:?(?:\*\*)?\s+|is\s+)|-|\s)v?"
    r"(?P<v>\d{1,2}(?:\.\d{1,3}){1,3}(?:-\d+(?:\.\d+)*)?)(?:\+cuda(?P<cuda>\d{1,2}\.\d{1,2}))?(?![\w.]*\d)")
# NCCL's own banner on a line of its own (a label before it at most), read as NCCL's log gives it: where a sentence names
# versions ("Working: Driver 550.163.01, CUDA 12.4, NCCL 2.20.5+cuda12.4", NVIDIA/nccl#1830) it may compare several
_BANNER_LINE = re.compile(r"^\W*(?:[A-Za-z]+:\s*)?NCCL version \S+\s*$")
# driver 535.104.05 / Driver Version: 535.104.05 / the driver is 470     (NVIDIA's driver branch: three digits)
# - **Driver Version:** 570.153.02                                                     (NVIDIA/DCGM#238: markdown bold keys)
_DRIVER = re.compile(r"\b[Dd]river(?:\s+[Vv]ersion)?(?:\s*:(?:\*\*)?\s*|\s+is\s+|\s+)(?P<v>[3-9]\d\d(?:\.\d{1,3}){0,2})(?![\w.]*\d)")
# Arch Linux, 7.0.5-arch1-1, nvidia-open 595.71.05-5, RTX 5070TI.                     (NVIDIA/open-gpu-kernel-modules#1030)
#   the driver named by its package (nvidia, nvidia-open, nvidia-driver, nvidia-dkms ...) and a dotted version:
#   software ``driver_open`` for the open kernel modules' package, ``driver`` for the others
_DRIVER_PACKAGE = re.compile(r"(?<![\w/.-])nvidia(?P<open>-open)?(?:-driver|-dkms|-utils|-kernel-source)?[- ]"
                             r"(?P<v>[3-9]\d\d\.\d{1,3}(?:\.\d{1,3})?)(?![\w.]*\d)")

# --- platform ---------------------------------------------------------------------------------
_PRODUCT = r"(?:GB[23]00|[HB]\d{2,3}|A\d{2,3}G?|[VP]100|L40S?|L4|T4|RTX\s?(?:A\d{4}|[2-5]0[6-9]0(?:\s?Ti)?))"
# - 8x H100 PCIe, 4x nvlink, without nvswitch in node                                  (NVIDIA/nccl-tests#196)
# 2node16 H20 GPU allredcue performance is 343GBps ...                                 (NVIDIA/nccl#1244)
# HW: 2 nodes with 8 GPUs for each and be connected via 25G Mellanox CX5.              (NVIDIA/nccl#330)
_GPUS = re.compile(
    r"(?<![\d.])(?P<n>\d{1,3})\s?(?:[x×*]\s?)?(?:NVIDIA\s+)?(?P<p>" + _PRODUCT + r")(?P<f>\s+(?:PCIe|SXM\d?|NVL))?\b"
    r"|(?<![\d.])(?P<n2>\d{1,3})\s?(?:x\s?)?GPUs\b"
    # I used NCCL latest code to test A100 * 2 nodes.                                  (NVIDIA/nccl#946)
    r"|(?<!DGX )(?<!DGX-)\b(?P<p2>" + _PRODUCT + r")(?P<f2>\s+(?:PCIe|SXM\d?|NVL))?(?:\s?[*x×]\s?\d{1,4})?\s+(?:GPUs?|nodes?|platform|servers?)\b")
# They are standard DGX A100 platform, each node has 8 x 100Gbps NICs.                 (NVIDIA/nccl#812)
_SYSTEM = re.compile(r"\bDGX[- ]?(?P<p>A100|H100|H200|B200|GB200|B300|-[12])\b"
                     # ... as well as the instance type being a P5 from EC2.           (NVIDIA/DCGM#184)
                     # all-reduce slower on v2.20.5 compared to v2.18.5 on AWS g5.48xlarge (8 x A10G)   (NVIDIA/nccl#1298)
                     r"|\b(?P<inst>[pPgG][3-6](?:dn|de|d|en|e)?(?:\.\d{0,2}xlarge\b)?)(?:(?<=xlarge)|(?=\s+(?:from|on)\s+EC2|\s+instances?\b))")
# I used NCCL latest code to test A100 * 2 nodes.                                      (NVIDIA/nccl#946)
# I have two machines, and each has two network interfaces and four GPUs.              (NVIDIA/nccl#278)
_NODES = re.compile(r"(?<![\w.])(?P<n>" + _COUNT + r")\s?(?:x\s?)?(?:[\w-]{1,30}\s)?(?i:nodes?|machines|servers|hosts)(?![a-z])")
# - single Intel 100Gbps network card in node                                          (NVIDIA/nccl-tests#196)
# each node has 8 x 100Gbps NICs.                                                      (NVIDIA/nccl#812)
# ... connected via 25G Mellanox CX5.                                                  (NVIDIA/nccl#330)
# 16 cx7 NICs(IB NDR)                                                                  (NVIDIA/nccl#1244)
_NICS = re.compile(
    r"(?:(?<![\w.])(?P<n>" + _COUNT + r")\s?(?:x\s?)?)?(?:(?:Intel|Mellanox|NVIDIA|Broadcom)\s)?"
    r"(?:(?P<rate>\d{2,3})\s?G(?:bps|b/s|bit/s|bE|b)?\s)?(?:(?:Mellanox|Intel|NVIDIA|Broadcom)\s)?"
    r"(?P<nic>NICs?\b|network (?:cards?|interfaces?|adapters?)\b|HCAs?\b|(?:ConnectX|[Cc][Xx])-?\d\b)")
_NVSWITCH = re.compile(r"\b(?:(?P<neg>without|no|w/o)|with)\s+(?:an?\s+|the\s+)?(?i:nvswitch(?:es)?)\b")

# --- settings ---------------------------------------------------------------------------------
# NCCL_SOCKET_IFNAME=enP1p1s0f0,enP1p1s0f1                                             (NVIDIA/nccl#278)
_SETTING = re.compile(r"(?<![\w$])(?P<name>(?:NCCL|UCX|FI|TORCH_NCCL)_[A-Z0-9_]+|CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES)"
                      r"=(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s`'\",;)]*(?:,[^\s`'\",;)]+)*)")

# --- figures ----------------------------------------------------------------------------------
# ... performance is 343GBps（with NVL SHARP）,But theoretically it should be able to reach 460GBps   (NVIDIA/nccl#1244)
# I'm seeing 125 Gbps reported by `all_reduce_perf` ... advertised to be only 100 Gbps.   (NVIDIA/nccl-tests#22)
_FIGURE = re.compile(r"(?<![\w.])(?P<v>\d{1,5}(?:\.\d+)?)\s?(?P<u>GB/s|GBps|GB/sec|Gbps|Gb/s|Gbit/s|MB/s|MBps)(?![\w/])")
# ... it took some time to finish,  Avg bus bandwidth    : 0.176812. What can I do ...   (NVIDIA/nccl-tests#284)
_AVG_BUSBW = re.compile(r"Avg bus bandwidth\s*:\s*(?P<v>\d+(?:\.\d+)?)")
_TO_GB_S = {"GB/s": 1.0, "GBps": 1.0, "GB/sec": 1.0, "Gbps": 0.125, "Gb/s": 0.125, "Gbit/s": 0.125, "MB/s": 0.001, "MBps": 0.001}
_EXPECTED_CUE = re.compile(r"\b(?:should|expect\w*|theoretic\w*|advertised|supposed|rated|line rate|peak|max(?:imum)?|up to)\b", re.I)
_COMPARED_CUE = re.compile(r"\b(?:exceed\w*|above|over|more than|higher than|below|less than|lower than|under)\s*$", re.I)
_BUSBW_CUE = re.compile(r"\bbus\s?bw\b|\bbus bandwidth\b", re.I)
_ALGBW_CUE = re.compile(r"\balg\s?bw\b|\balgorithm bandwidth\b", re.I)

# --- the symptom ------------------------------------------------------------------------------
# ... But theoretically it should be able to reach 460GBps                             (NVIDIA/nccl#1244)
# Performance of OMPI 4.0.2 ... drops ~ 6X                                             (openucx/ucx#4770)
# NCCL 2.19.3 issue . Performance reduction when using NVLSTree algorithm              (pytorch/pytorch#117748)
# ... What can I do to improve the speed?                                              (NVIDIA/nccl-tests#284)
# We are observing PCIe violations on p5 happen consistently ...                       (NVIDIA/DCGM#184)
_SYMPTOMS = (
    ("below_expected", re.compile(r"\bshould (?:be able to )?(?:reach|get|achieve|hit)\b|\b(?:lower|less|worse|slower) than "
                                  r"(?:expected|theoretical|what)|\bbelow (?:the )?(?:expected|theoretical)|\bnot as expected"
                                  r"|\b(?:cannot|can't|could not|couldn't) (?:reach|achieve|get)\b|\bonly (?:reach|achieve)s?\b", re.I)),
    ("slow", re.compile(r"\b(?:slow(?:er|ly|ness|down|s)?|drops|dropped|dropping|degrad\w+|performance (?:reduction|regression"
                        r"|drop|issue|problem)|regression|poor (?:performance|bandwidth|throughput)|(?:very )?low "
                        r"(?:performance|bandwidth|throughput|busbw)|improve the (?:speed|performance|bandwidth)"
                        # Why is GPU underutilized... If it is just using 50% of both GPUs, ...   (vllm-project/vllm#4238)
                        r"|under-?utili[sz]ed|under-?utili[sz]ation|low (?:GPU )?utili[sz]ation)\b", re.I)),
    # ### How is this issue impacting you?  /  Application hang                       (NVIDIA/nccl#1830, its issue template)
    ("hang", re.compile(r"\b(?:hangs?|hung|hanging|stuck|freezes|freezing|frozen|deadlock(?:s|ed)?)\b", re.I)),
    ("violations", re.compile(r"\bviolations\b", re.I)),
    # for some reason one of the GPUs on cn110 is not working as it should. ...    (ai4d-iasc/trixie#38)
    # 1650 nvidia-open driver: Crashes                                          (NVIDIA/open-gpu-kernel-modules#1030)
    #   a failure told in words no program prints as its error: a claim, as the error sentences below
    # ... Rolling back to 580.159.03 stopped the faults immediately ... We have a deterministic single-machine
    #   reproduction that faults within 2–3 minutes.                            (NVIDIA/open-gpu-kernel-modules#1370, harvest 2701)
    #   "faults" as a verb or a plural (a GPU's, a driver's) tells of faults met, as "crashes" does; not a count of none
    #   ("no faults", "zero faults", "without faults"), nor a process's page faults (GNU time's "Minor (reclaiming a
    #   frame) page faults: 12", "page-faulting"), nor "fault tolerance" (the singular is left: "at fault", "default")
    ("error", re.compile(r"(?:\bnot|n't) working\b|\b(?:doesn't|does not|don't|do not|didn't|did not|won't|stopped|stops) "
                         r"work(?:ing)?\b|\bcrash(?:es|ed|ing)?\b"
                         r"|(?<!\bno )(?<!\bzero )(?<!\bpage )(?<!\bwithout )(?<!\bpage-)\bfault(?:s|ed|ing)\b"
                         # [Issue]: torchrun segfaults with exit code -11. But passes when I disable NCCL_P2P and NCCL_SHM
                         #   (NVIDIA/nccl#1914's title): the verb, as "crashes"; not the noun, which a shell prints
                         #   ("Segmentation fault (core dumped)") and the kernel logs ("python[123]: segfault at 8 ip ...")
                         r"|\bseg-?fault(?:s|ed|ing)\b", re.I)),
)
#: the words of a fault told (the "error" and "hang" symptoms): what makes a reporter's sentence inside another
#: program's output worth reading (engine/foreign_runs.py: a paragraph pasted under nccl-tests results, where the reader
#: left that one line unread). Not the performance words ("slow", "violations"): a config's comment says them
#: ("    # Errors and violations", a dcgm-exporter counters file's section, fixtures/artefacts/dcgm_exporter_counters)
CLAIM_WORDS = re.compile("|".join(f"(?:{p.pattern})" for s, p in _SYMPTOMS if s in ("error", "hang")), re.I)
_COMPONENT_WORDS = (
    ("pcie", re.compile(r"\bPCIe?\b", re.I)),
    ("nccl", re.compile(r"\b(?:nccl|bus\s?bw|bus bandwidth|all[_-]?reduce|allredcue|all_reduce_perf|collective|NVLS\w*)", re.I)),
    ("network", re.compile(r"\b(?:NICs?|network|RDMA|RoCE|InfiniBand|IB|EFA|osu_\w+|OSU|OMPI|UCX|MOFED)\b", re.I)),
    ("gpu", re.compile(r"\b(?:GPUs?|clocks?|thermal|power)\b", re.I)),
)

# --- what a line of prose is ------------------------------------------------------------------
# three words in a row: "without nvswitch in", "allredcue performance is"
_SENTENCE = re.compile(r"[A-Za-z][a-z']{1,40},? [A-Za-z]?[a-z']{1,40},? [A-Za-z]?[a-z']{1,40}")
# HW setup:        **Environment**        ### Summary
# --- machine A ---      (NVIDIA/open-gpu-kernel-modules#1030: a title between rules)
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+[^\n]{1,60}|\*\*[^*\n]{1,60}\*\*:?|[A-Za-z][\w /()-]{0,40}:"
                      r"|(?P<rule>-{3,}|={3,}|\*{3,})[ \t]*[A-Za-z][\w .()/-]{0,40}?[ \t]*(?P=rule))\s*$")
_MARKUP = re.compile(r"^[\W_]*$")
# [nccl_debug.txt](https://github.com/user-attachments/files/22125235/nccl_debug.txt)   (NVIDIA/nccl#1830): a link, an attachment
_LINK = re.compile(r"^\s*(?:[-*]\s+)?(?:!?\[[^\]\n]*\]\([^)\s]*\)[\s.,]*)+$|^\s*<?https?://\S+>?\s*$")
# an issue template's environment fields, whatever their value (an unknown tool's "Status: degraded" is no such line),
# as PyTorch's collect_env names them and templates ask for them:
# OS: Ubuntu 18.04.2 LTS            Python version: 3.6            GPU models and configuration: GPU 0: GeForce RTX 2060
#   (torch-points3d/torch-points3d#66, fixtures/artefacts/python_packages/torch_points3d66_collect_env_cu90_driver418.txt)
_ENV_FIELD = re.compile(r"^\s*(?:[-*]\s+)?\**(?:OS|Operating system|Kernel|Linux|Python|PyTorch|Torch|TensorFlow|JAX|CUDA|cuDNN"
                        r"|CUDA/cuDNN|NCCL|Driver|Nvidia driver|GPUs?|GPU models?|Hardware|HW|Network|NICs?|Interconnect|Framework"
                        r"|Docker image|Container|Image|Platform|Cluster|Nodes?|Environment|Versions?|MPI|Open MPI|OFED|MOFED|UCX"
                        # PCIE: Gen3 16X   (NVIDIA/nccl#384)      - **DCGM Version:** 4.2.3   (NVIDIA/DCGM#238)
                        r"|PCIe|PCI-E|NVLink|DCGM)"
                        r"\b[\w ./()-]{0,60}?\**\s*:", re.I)

#: one alternation of every phrase read (the group names go): which lines hold one
_ANY = re.compile("|".join(re.sub(r"\(\?P<\w+>", "(?:", p.pattern) for p in (
    _VERSION, _DRIVER, _DRIVER_PACKAGE, _GPUS, _SYSTEM, _NODES, _NICS, _NVSWITCH, _SETTING, _FIGURE, _AVG_BUSBW)))


# A reporter's outcome of a try, a short "<what>: <how it went>" line, the word as a person writes it (a tool
# prints PASS, FAIL, OK in capitals; those stay another program's output):
# 1650 nvidia driver: Works                                                   (NVIDIA/open-gpu-kernel-modules#1030)
_OUTCOME = re.compile(r"^\s*(?:[-*]\s+)?[\w .()/+-]{1,60}:\s*\**(?:[Ww]orks|[Ww]orking|[Ww]orked|[Ff]ine|[Cc]rash(?:es|ed)?"
                      r"|[Hh]angs|[Bb]roken)\**[.!]?\s*$")
# A command the reporter typed, quoted without its prompt or after a bare "$ " (one of the commands people run to
# build, look and launch): what they ran, not what the system said (tools' own lines say "make: ***", "cat: <file>:
# No such file": a colon after the name is output). A user@host prompt is a terminal's paste, no ticket's prose:
# the output under it is a program's.
# cd nccl / make -j 8 test / rm -r build/lib                                 (NVIDIA/nccl#76, a user's recipe)
_TYPED = re.compile(r"^\s*(?:\$\s+)?(?:sudo\s+)?(?:cd|ls|cat|make|cmake|rm|cp|mv|mkdir|git|export|source|pip3?|conda|python3?"
                    r"|bash|sh|apt(?:-get)?|yum|dnf|docker|kubectl|srun|sbatch|salloc|mpirun|mpiexec|torchrun|nvcc|wget|curl"
                    r"|echo|grep|tar|module|modprobe|nvidia-smi|ldd)(?:\s+[^\s:][^\n]{0,300})?\s*$")
# A sentence the reporter wrapped after its first words, its rest on the next line:
# I followed                                                                    (NVIDIA/nccl#76, before the recipe)
_FRAGMENT = re.compile(r"^\s*(?:I|We|Then|And|So|But|After|When)\s+[a-z']{2,20}(?:\s+[a-z']{1,20})?\s*[:,]?\s*$")


# A GitHub issue form's answer: the form renders each field as its label under "### " and the value the reporter gave on
# the next non-blank line; a field that asks for a version, the platform or a choice of impact has a short value that
# is no sentence, which the form's heading makes the reporter's (NVIDIA/nccl's .github/ISSUE_TEMPLATE/ISSUE.yaml at
# 5067397c: the dropdown "How is this issue impacting you?", the input "NCCL Version" with the placeholder
# "e.g. 2.27.1+cuda12.8", the textarea "Your platform details"):
# ### NCCL Version                                                       (NVIDIA/nccl#1992, the reporter's answers)
# 2.28.9+CUDA12.8
# ### Your platform details
# H200
# Only the field's first line is its value here; a longer answer is read line by line as any other.
_FORM_LABEL = re.compile(r"^###[ \t]+(?P<label>How is this issue impacting you\?|Your platform details|Platform(?: details)?"
                         r"|Environment|Hardware|GPUs?(?: model)?|(?P<sw>[A-Za-z][\w.+/-]{0,20} )?[Vv]ersions?)[ \t]*$")
_FORM_VALUE = re.compile(r"^\s*\S[^\n]{0,79}$")
# the bare version an input "<software> Version" holds: 2.28.9+CUDA12.8, 2.21.5-1+cuda12.4 (NVIDIA/nccl's placeholder
# "e.g. 2.27.1+cuda12.8"), v2.23.4-1
_FORM_BARE_VERSION = re.compile(r"^\s*`?v?(?P<v>\d{1,2}(?:\.\d{1,3}){1,3}(?:-\d+(?:\.\d+)*)?)"
                                r"(?:\s*\+\s*(?i:cuda)[ -]?(?P<cuda>\d{1,2}\.\d{1,2}))?`?\s*$")


def form_values(lines: list[str]) -> dict[int, re.Match[str]]:
    """The lines (1-based) that are an issue form's answers (the first non-blank line under a field's ``### `` label
    that asks for a version, the platform or the impact), each with its label's match."""
    values: dict[int, re.Match[str]] = {}
    label: re.Match[str] | None = None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if label is not None and not line.startswith("#") and _FORM_VALUE.match(line):
            values[n] = label
        label = _FORM_LABEL.match(line) if line.startswith("###") else None
    return values


def _lines(text: str) -> list[str]:
    return text.split("\n")


# --- a reporter's table and before/after lines ------------------------------------------------
# A markdown table (GitHub's: a header row, a delimiter row of dashes under it, cell for cell, then rows) is what a
# reporter writes to set figures side by side; no reader's tool prints its delimiter row (nvidia-smi's and dcgmi's
# boxes join their dashes with '+': "|-------------------------------+----------------------+", "|-----  Metadata
# ----------+---..."). Its rows with a figure are the reporter's measurements (stated_measurement), a claim:
# | Metric | CPU training | GPU training |                              (open-edge-platform/geti#5958, the PR's
# |--------|--------------|--------------|                               "Measured numbers", harvest 3007)
# | data_time per batch | ~0.002 s | ~0.217 s |
# |   n_ctx | size     |   custom (us) |                                (microsoft/mscclpp#210, a tabulate-style
# |---------|----------|---------------|                                 table of allreduce latencies)
# |       1 | 24.0KiB  |          15.6 |
# | msg_size   | torch eager time | msccl eager time | msccl graph time | pynccl graph time |   (sgl-project/sglang#22734:
# |------------|------------------:|-----------------:|-----------------:|------------------:|    alignment colons)
# | 2.0 KiB  | 19.77       | 11.70       | **5.86**    | 16.84        |
# a delimiter cell: dashes, a colon at either end for the alignment (the cells come stripped, _cells: no
# blanks around them; a leading [ \t]{0,200} made a search of a long run of blanks quadratic, bench/redos.py)
_DELIM_CELL = re.compile(r":?-{1,10000}:?")
# the cells of a row: split at each '|' not escaped
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_DIGIT = re.compile(r"\d")
# A line a reporter labels as before or after a change, with a figure in it:
# Before: 3 it /s, data_time 0.217                                      (open-edge-platform/geti#5958, under its table)
# Now: 13 it / s data_time 0.003-0.005
_LABELLED = re.compile(r"^[ \t]{0,8}(?:[-*][ \t]{1,4})?\**(?P<label>Before|After|Now|Previously|Originally|Baseline)\**"
                       r"[ \t]{0,4}:\**[ \t]{0,8}(?P<values>[^\n]{1,300})$")


def _cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return [c.strip() for c in _CELL_SPLIT.split(s)]


def _delimiter(line: str) -> int:
    """The number of cells of a markdown table's delimiter row (0: not one)."""
    if "|" not in line or "-" not in line or line.strip(" \t|-:"):
        return 0
    cells = _cells(line)
    return len(cells) if all(_DELIM_CELL.fullmatch(c) for c in cells) else 0


def tables(lines: list[str]) -> dict[int, tuple[list[str], list[str]] | None]:
    """The lines (1-based) of the markdown tables of ``lines``: a body row with a figure in a cell after its first
    maps to (its header's cells, its cells); the header, the delimiter and the other rows to None. A table whose
    rows tell of a failure (unrecognised_text's ERROR_WORDS or FAILURE_WORDS; a count of none, "0 errors", is none) is
    none of them: its lines are left to the reader of error lines."""
    out: dict[int, tuple[list[str], list[str]] | None] = {}
    i = 1
    while i < len(lines):
        width = _delimiter(lines[i]) if "|" in lines[i] else 0
        head = lines[i - 1]
        if not width or "|" not in head or n_cells(head) != width or _delimiter(head):
            i += 1
            continue
        header = _cells(head)
        rows: dict[int, tuple[list[str], list[str]] | None] = {i: None, i + 1: None}
        j = i + 1
        while j < len(lines) and "|" in lines[j] and lines[j].strip():
            cells = _cells(lines[j])
            rows[j + 1] = (header, cells) if any(_DIGIT.search(c) for c in cells[1:]) else None
            j += 1
        if not any(_fails(lines[n - 1]) for n in rows):
            out.update(rows)
        i = j + 1
    return out


def _fails(line: str) -> bool:
    """Whether ``line`` tells of a failure (unrecognised_text's ERROR_WORDS or FAILURE_WORDS), not only of a count of
    none ("0 errors", "ERROR SUMMARY: 0 errors", "failed=0": unrecognised_text.zero_counts_only)."""
    return (ERROR_WORDS.search(line) is not None or FAILURE_WORDS.search(line) is not None) and not zero_counts_only(line)


def n_cells(line: str) -> int:
    return len(_cells(line))


def measurements(lines: list[str]) -> dict[int, tuple[str, str, str]]:
    """The reporter's measurements in ``lines`` (1-based line -> (form, what, values)): the rows of its markdown
    tables with a figure (:func:`tables`) and its lines labelled before or after with a figure in them (none that
    tells of a failure)."""
    out: dict[int, tuple[str, str, str]] = {}
    for n, row in tables(lines).items():
        if row is None:
            continue
        header, cells = row
        # the row's name; a figure first (a size, a count) under its column's header: "msg_size 2.0 KiB", "n_ctx 1"
        what = f"{header[0]} {cells[0]}" if header[0] and _DIGIT.search(cells[0]) else cells[0] or header[0]
        values = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header[1:] + [""] * len(cells), cells[1:]) if c)
        out[n] = ("table_row", what[:120], values[:300])
    for n, line in enumerate(lines, 1):
        if ":" not in line or n in out:
            continue
        m = _LABELLED.match(line)
        if m is None or _DIGIT.search(m["values"]) is None or _fails(line):
            continue
        out[n] = ("labelled_line", m["label"], " ".join(m["values"].split())[:300])
    return out


# a program's log line, whatever its words (a time stamp or a level first): the file is output, not a ticket
# [22:44:14] ERROR - GPU 1 hung detected!                                               (NebuTech/NBMiner#788)
# 2020/05/14 02:11:19 Loading NVML        I1025 02:19:08.002792  1 health.go:151] ...    INFO: task python3 blocked ...
# a syslog / journal stamp first, its month in any case (journalctl prints the locale's abbreviation: "nov" lowercase
# in some; facts/lines.py takes the label off, a text read raw keeps it), and logrus's text form (time="<RFC 3339>" level=... msg=...), what
# is left of a journal line once its label comes off (NVIDIA/gpu-operator#432, containerd's journal):
# nov 02 18:00:58 beck containerd[10237]: time="2022-11-02T18:00:58.738797825+02:00" level=error msg="RunPodSandbox for &PodSandboxMetadata{Name:gpu-feature-discovery-qfjgk,...} failed, error" error="failed to get sandbox runtime: ..."
# and nvidia-smi's banner row, a program's output whose versions its own reader reads (nvidia_smi_table), alone too:
# | NVIDIA-SMI 525.125.06   Driver Version: 525.125.06   CUDA Version: 12.0     |      (gpuopenanalytics/pynvml#48, pasted alone)
_LOG_LINE = re.compile(r"^\s*(?:\|\s*NVIDIA-SMI \d|\[?\d{2,4}[-/.]\d\d[-/.]\d\d|\[?\d\d:\d\d:\d\d|[IWEF]\d{4} \d\d:|\[?(?:INFO|WARN(?:ING)?|ERROR|DEBUG"
                       r"|FATAL|CRITICAL|TRACE)\b|[A-Za-z]{3} [ \d]\d \d\d:\d\d:\d\d\b|time=\"?\d{4}-\d\d-\d\dT\d\d:\d\d)")


# A reporter's sentence that tells of an error (harvest 2405, aws/aws-k8s-tester#806; 2407, NVIDIA/DCGM#126):
# ... so the link comes up below x16 and the sub-test fails with DCGM_FR_PCIE_WIDTH (error 46) even though the GPU is healthy.
# But if I use the command "**_nvidia-smi -q -d ECC_**" to check error, the ECC count will not change.
# The reporter's own words mark it: the first person singular (a program says "we", never "I"), a concession or a
# sentence opened with a conjunction, or reported speech (harvest 2702, dsx-ai-factory/infra-controller#384: "Users
# reported that machine validation test `DcgmFullShort` was failing with the error `No such file or directory (os
# error 2)` ..."; a program reports its own failure, it does not say someone reported it); ten words at least. A program's failure form (facts/parsers/unrecognised_text.py
# FAILURE_WORDS: an exception's line, ERROR, "Error: ", a signal) is never one, whatever words surround it.
_REPORTER = re.compile(r"(?<![\w/])(?:I|I'm|I've|I'd)(?![\w/])|\b(?:my|me)\b|\b(?:even though|although|whereas)\b"
                       r"|^\W*(?:But|And|So|Also|However|When|If|Then)\b"
                       r"|\b(?:[Uu]sers?|[Cc]ustomers?|[Pp]eople|[Ss]omeone) (?:have |had )?(?:reported|report|noticed|observed|saw)\b"
                       r"|\b(?:reported|noticed|observed) that\b"
                       # Note: `ib_write_bw -R` reported error.  Not sure why `rdma_cm` isn't usable in the container, as the
                       #   device file looks normal.     (Mellanox/k8s-rdma-shared-dev-plugin#54: the first person elided, a
                       #   hedge no program prints)
                       r"|\b[Nn]ot sure (?:why|if|whether|how|what)\b"
                       # The failure began at the first concurrent non-empty-context cell (`8k/C2`) after a C1 sweep
                       #   through 256k, so concurrent HiCache KV/Mamba restoration appears suspicious.
                       #   (ormandj/sglang-glm53-flash-sm120#2: the first person elided; a suspicion and a failure told
                       #   as a story are the reporter's, no program says either)
                       r"|\b(?:appears?|seems?|looks?) (?:to be )?(?:suspicious|suspect|related|responsible)\b"
                       r"|^\W*The (?:failure|error|crash|hang|problem|issue) (?:began|started|first appeared|happened|occurred) (?:at|when|after|during|on|in)\b"
                       # After some debugging, enabling NCCL_DEBUG=INFO, it appears that the NCCL init is hitting an OOM
                       #   condition. It only logs the OOM as a warning, and eventually propagates as a non-specific
                       #   error. See log dump below.     (jax-ml/jax#4950: what the reporter did, told as a story)
                       r"|^\W*After (?:some|a bit of|a lot of|much|more|further|hours of|days of) (?:debugging|digging|investigation"
                       r"|investigating|testing|troubleshooting)\b")
_WORDS = re.compile(r"[A-Za-z']+")


def reported_error(line: str) -> bool:
    """Whether ``line`` is a reporter's sentence that tells of an error in words (an error word of
    unrecognised_text's ERROR_WORDS, none of its FAILURE_WORDS): a claim, not the program's line."""
    return (ERROR_WORDS.search(line) is not None and _REPORTER.search(line) is not None and not _LOG_LINE.match(line)
            and FAILURE_WORDS.search(line) is None and len(_WORDS.findall(line)) >= 10)


# A reporter's sentence that points at an error shown elsewhere (a screenshot, a block above or below, another comment)
# and names none of its own (wild sweep rR5's leftover, round rS2):
# after hack some config, I have this error:                (TomMelt/mdb#66: the error in a screenshot)
# yaml nnodes: 2or3or4 will report above error               (etheneyur/EasyR1#20: the error in a screenshot)
# I got this error when running training.                    (CONSTRUCTED: reported_error's ten words, too few here)
# Every error word of the line sits in such a reference, a verb of meeting or showing it and a determiner that points
# elsewhere ("have this error", "report above error", "got the following error", "prompted such an error"); with the
# reporter's own marks (reported_error's, or a lower-case "i") an indefinite one too ("I encountered an error"). No
# failure form, no log stamp, nothing a program prints (unrecognised_text.printed: "error: <what>", an exception's name,
# a source file's line). Alone it is the reporter's claim (a reported_symptom: inconclusive); beside the error it points
# at, that error says what failed.
_POINTING_VERB = (r"(?:get|gets|got|getting|have|has|had|having|met|meet|meets|meeting|encounter(?:s|ed|ing)?|see|sees|saw"
                  r"|seeing|seen|face[sd]?|facing|hit|hits|hitting|receive[sd]?|receiving|report(?:s|ed|ing)?"
                  r"|show(?:s|ed|n|ing)?|throw(?:s|n|ing)?|threw|raise[sd]?|raising|give[sn]?|gave|giving|prompt(?:s|ed)?"
                  r"|(?:run|ran|running) into)")
_ERROR_NOUN = r"(?:errors?|failures?|exceptions?)"
_POINTER = re.compile(rf"\b{_POINTING_VERB}\s+(?:(?:me|us)\s+)?(?:the\s+)?(?:this|that|these|those|above|following|same"
                      rf"|such(?:\s+an?)?|similar|below|aforementioned)\s+(?:[a-z]+\s+){{0,2}}?{_ERROR_NOUN}\b", re.I)
_POINTER_OWN = re.compile(rf"\b{_POINTING_VERB}\s+(?:(?:me|us)\s+)?(?:an?|some|the|one)\s+(?:[a-z]+\s+){{0,2}}?{_ERROR_NOUN}\b",
                          re.I)
_LOWER_I = re.compile(r"(?<![\w/'])i(?![\w/'])")


def points_at_error(line: str) -> bool:
    """Whether ``line`` is a reporter's sentence whose error words all point at an error shown elsewhere ("I have this
    error:", "will report above error"): it names no error of its own (see above)."""
    if _LOG_LINE.match(line) or FAILURE_WORDS.search(line) is not None or printed(line):
        return False
    rest = _POINTER.sub(" ", line)
    if _REPORTER.search(line) is not None or _LOWER_I.search(line) is not None:
        rest = _POINTER_OWN.sub(" ", rest)
    return rest != line and ERROR_WORDS.search(rest) is None


# A sentence that explains what a class of error is or may mean, not a report of one (harvest 2705,
# kubernetes-sigs/dra-driver-nvidia-gpu#904, a maintainer's classification quoted in a ticket):
# An XID is an error report emitted by the NVIDIA driver. It indicates that some GPU-related fault occurred, but the XID
#   alone does not necessarily identify the root cause or imply that the physical GPU has failed. The cause may be
# Told by two of its markers at least, a definition ("An XID is an ...", "Xid errors are ...") or a denied certainty
# ("not necessarily") among them; the others: what a thing indicates or means, a possibility ("may be", "can
# indicate"), an example ("such as", "for example"). Fewer is how a reporter also hedges an error they met ("the job
# failed, it may be a driver problem"; "it failed, which usually indicates that ..."): that line stays an error line.
_EXPLAIN_MARKS = (
    re.compile(r"^\W*(?:An?|Each|Every|Any)\s+[\w/-]{1,30}(?:\s+[\w/-]{1,30}){0,3}?\s+(?:is|means)\s+(?:an?|the|when|that)\b"
               r"|^\W*[A-Z][\w/-]{0,30}(?:\s+[\w/-]{1,30}){0,2}?\s+(?:errors|faults|events|messages|codes)\s+are\s+(?:\w+\s+){0,2}?"
               r"(?:reports?|messages?|errors?|events?|signs?|indications?|emitted|raised|printed|logged|reported)\b"),
    re.compile(r"\b(?:indicates?|means|suggests?|implies|signals?) that\b", re.I),
    re.compile(r"\bnot necessarily\b|\bdoes not (?:always|mean|imply)\b|\bdoesn't (?:always|mean|imply)\b", re.I),
    re.compile(r"\b(?:may|might|can|could)(?: also)? (?:be|indicate|mean|come|result|occur|happen|point)\b"
               r"|\bpossible (?:causes?|reasons?)\b|\btypically\b|\busually\b|\bin general\b", re.I),
    re.compile(r"\bsuch as\b|\bfor example\b|\be\.g\.", re.I),
)
# what introduces a list of the possibilities it explains, at the end of an explaining line:
# ... The cause may be              Possible causes:            ... can be caused by:
_EXPLAIN_LIST_INTRO = re.compile(r"(?:\b(?:may|might|can|could) (?:be|include)(?: caused by| due to)?|\bpossible (?:causes?|reasons?)"
                                 r"|\b(?:causes?|reasons?) (?:include|are)|\bsuch as|\bfor example|\be\.g\.)[ \t]*[:,-]?[ \t]*$", re.I)
# a list item that names one possibility: a short phrase, no colon (a program's "<what>: <error>" is no such item)
# - an application error,        - PCIe, NVLink, or hardware failures
_EXPLAIN_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d{1,2}[.)])\s+(?P<item>[^:\n]{1,80})$")


def _explains(line: str) -> bool:
    """Two markers, one of them a definition or a denied certainty (the possibility and the example alone are how a
    reporter also tells what they think caused the error they met: "it failed, which usually indicates that ...")."""
    if FAILURE_WORDS.search(line) is not None:
        return False
    marks = [p.search(line) is not None for p in _EXPLAIN_MARKS]
    return sum(marks) >= 2 and (marks[0] or marks[2])


def explanations(lines: list[str]) -> set[int]:
    """The lines (1-based) of a file of prose that explain what an error class is or may mean (:func:`_explains`),
    and the short items of a list such a line ends by introducing ("The cause may be" / "- an application error,"):
    knowledge quoted, neither an error report nor a claim about this system; none when any line of the file is
    not prose (a program's output)."""
    out: set[int] = set()
    listing = False
    for n, line in enumerate(lines, 1):
        if listing and (m := _EXPLAIN_ITEM.match(line)) is not None and len(_WORDS.findall(m["item"])) <= 8 \
                and FAILURE_WORDS.search(line) is None:
            out.add(n)
            continue
        listing = False
        if _explains(line):
            out.add(n)
            listing = _EXPLAIN_LIST_INTRO.search(line) is not None
    if not out or not _prose(lines, out):
        return set()
    return out


# A sentence that tells what a program does when something fails, not that it failed: a change's or a design's
# description (a pull request's, NVIDIA/NVSentinel#1240, its list item under "## Summary"):
# **1. Create a RESTART_VM event when GPU resets fail:** currently, ... Now, we will also start emitting an unhealthy event
#   with a RESTART_VM recommended action by the syslog-health-monitor when it detects that a GPU failed to be reset. The
#   resulting reboot will clear both events for the initial XID needing a reset and subsequent failed reset event ...
# Each of its error words (unrecognised_text's ERROR_WORDS) is a condition the text handles: in a clause opened by
# "when", "if", "whenever", "unless", "once", "in case" or "should" ("when it detects that a GPU failed to be reset"), or
# "failed" said of any such thing, not of one ("subsequent failed reset event", "for successful and failed resets",
# "debugging failed resets"; not "the failed collective", PyTorch's "Stack trace of the failed collective not found", nor
# kubelet's "Back-off restarting failed container"). A sentence of twelve words at least, not the reporter's (first person
# singular: reported_error's), no log stamp, no failure form (FAILURE_WORDS: an exception's line, ERROR, a signal),
# outside a fenced block. A program's line says what failed ("Failed to reset GPU 0000:3b:00.0", "GPU reset failed: In
# use by another client", "error when resetting GPU"): its error word is the subject or the verb of its own clause, and
# it stays an error line.
_CONDITION = re.compile(r"\b(?:[Ww]hen(?:ever)?|[Ii]f|[Uu]nless|[Oo]nce|[Ii]n case|[Ss]hould)\b")
_CLAUSE_END = re.compile(r"[.;:!?](?:\*\*)?(?=\s|$)")
_FAILED_NOUN = re.compile(r"\b(?:for|and|or|any|all|every|each|subsequent|such)\s+[Ff]ailed\s+"
                          r"(?!to\b|with\b|at\b|on\b|in\b|because\b|due\b|after\b|while\b|since\b)[a-z]"
                          r"|\b[a-z]{3,20}ing\s+[Ff]ailed\s+[a-z]{2,30}s\b")
#: the reporter's own words (first person singular): their sentence tells of an error they met (reported_error's)
_FIRST_PERSON = re.compile(r"(?<![\w/])(?:I|I'm|I've|I'd)(?![\w/])|\b(?:my|me)\b")


def handled_failure(line: str) -> bool:
    """Whether ``line`` is a sentence that tells what is done when something fails, every error word of it a condition
    handled (see _CONDITION), none a program's report of a failure."""
    if FAILURE_WORDS.search(line) is not None or _LOG_LINE.match(line) or len(_WORDS.findall(line)) < 12 \
            or _SENTENCE.search(line) is None or _FIRST_PERSON.search(line) is not None:
        return False
    found = list(ERROR_WORDS.finditer(line))
    if not found:
        return False
    for m in found:
        start = max((e.end() for e in _CLAUSE_END.finditer(line, 0, m.start())), default=0)
        if _CONDITION.search(line, start, m.start()) is not None:
            continue
        if m[0].lower() == "failed" and any(f.start() < m.start() < f.end() for f in _FAILED_NOUN.finditer(line)):
            continue
        return False
    return True


def handled_failures(lines: list[str]) -> set[int]:
    """The lines (1-based) outside fenced blocks (an unclosed one included: an excerpt cut inside its block) that tell
    what is done when something fails (:func:`handled_failure`): a description, no error report."""
    return {n for n in outside_fences(lines)[0] if handled_failure(lines[n - 1])}


def reported_errors(lines: list[str]) -> set[int]:
    """The lines (1-based) of a file of prose that are reporters' sentences telling of an error
    (:func:`reported_error`); none when any line of the file is not prose (a program's output)."""
    told = {n for n, line in enumerate(lines, 1) if reported_error(line)}
    if not told or not _prose(lines, told | {n for n, line in enumerate(lines, 1) if _stated(line)}):
        return set()
    return told


def _prose(lines: list[str], read: set[int]) -> bool:
    """Every non-blank line is a sentence, a heading, markup, or one a fact was read from; none is a log line."""
    if any(_LOG_LINE.match(line) for line in lines):
        return False
    tabled: dict | None = None  # the lines of the reporter's markdown tables, found where a line needs them
    answers: dict | None = None  # an issue form's answers, found where a line needs them
    for n, line in enumerate(lines, 1):
        if n in read or _MARKUP.match(line) or _SENTENCE.search(line) or _HEADING.match(line) or _LINK.match(line) \
                or _ENV_FIELD.match(line) or _OUTCOME.match(line) or _TYPED.match(line) or _FRAGMENT.match(line):
            continue
        if answers is None:
            answers = form_values(lines) if "###" in "".join(lines) else {}
        if n in answers:
            continue
        if tabled is None:
            tabled = tables(lines) if "|" in "".join(lines) else {}
        if n not in tabled:
            return False
    return True


def _stated(line: str) -> bool:
    return (_ANY.search(line) is not None or any(p.search(line) for _s, p in _SYMPTOMS)
            or any(reported_codes(part) for part in line.split("\n")))


def detect(text: str) -> bool:
    lines = _lines(text)
    measured = measurements(lines)
    if not _stated(text) and not measured:
        return bool(reported_errors(lines)) or bool(remarks(lines))
    return _prose(lines, {n for n, line in enumerate(lines, 1) if _stated(line)} | set(measured))


@lru_cache(maxsize=1)
def _terms() -> re.Pattern[str]:
    """knowledge/coverage.yaml ``diagnostic_terms`` (whole words or prefixes, any case): the words that make a
    sentence one about the system, the list engine/parse_pool.py tells an uninformative file by."""
    from stethoscope.facts import knowledge

    terms = knowledge.load("coverage.yaml").diagnostic_terms
    return re.compile(r"\b(?:" + "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)) + ")", re.I)


# A request for a feature, as an issue's title or first line says it: what the reporter wants a tool to do, no claim
# about the system (a request that also names a failure is read as one):
# feature request: display what is limiting GPU performance like afterburner/RiviaTuner does   (flightlessmango/MangoHud#636)
_FEATURE_REQUEST = re.compile(r"^\s*(?:\[\s*)?(?:feature(?:[ _-]request)?|feat(?:\([\w./-]{1,40}\))?)(?:\s*\])?\s*:\s", re.I)


# the words of a fault a request may name ("feature request: detect a GPU that has fallen off the bus"): such a
# request tells of the fault it met, and stays a claim
_FAULT_WORDS = re.compile(r"\b(?:errors?|fail\w*|fault\w*|fallen|lost|hang\w*|hung|crash\w*|freez\w*|stuck|x?id ?\d+|s?xids?"
                          r"|ecc|throttl\w*|slow\w*|down|degraded|broken|timeouts?|timed out|oom|out of memory|reset)\b", re.I)


# A change's subject (a pull request's title, a commit's first line: an imperative verb first) asks for a change as a
# request for a feature does; one that names no fault says what the change does, no claim about the system:
# Collect events and upgrade state in must-gather.sh      (NVIDIA/gpu-operator#2168, a pull request's title)
# Added check for Infiniband PCIe link width and speed.   (mej/nhc#90, a pull request's title, the verb's past)
# Document PCIe link speed flapping on c-payne switches   (local-inference-lab/rtx6kpro#88, a pull request's title: it
#                                                          names a fault, "flapping", and stays a claim)
# (Fix, Revert, Handle, Prevent, Avoid or Work around say a fault was met; Drop, Switch and Use begin complaints as
# nouns, "Drop in bandwidth ...": none of them is taken)
_CHANGE = re.compile(r"^\s*(?:Add|Bump|Update|Upgrade|Support|Allow|Enable|Implement|Introduce|Document|Refactor|Rename|Expose"
                     r"|Collect|Move|Migrate|Replace|Improve|Deprecate|Include|Pin)(?:s|d|ed|ned)?[ \t]+[\w\"'`(]")
# words that make a change's subject tell of a fault met (beyond _FAULT_WORDS): "Update breaks nvidia-smi",
# "Add workaround for missing GPUs", "Enabled MIG, nvidia-smi shows no GPUs"
_NOT_NEUTRAL = re.compile(r"\b(?:not|n't|no|nothing|none|still|anymore|unable|missing|wrong|incorrect|bugs?|issues?|problems?|workaround|regression"
                          r"|invalid|unexpected\w*|mismatch\w*|disappear\w*|break\w*|broke|flap\w*|leak\w*|deadlock\w*|stall\w*"
                          r"|drop\w*|race|panic\w*|kill\w*|abort\w*|hot|overheat\w*|unstable|flaky|instability)\b", re.I)


def feature_request(line: str) -> bool:
    """A request for a feature (``feature request:``, ``feat(...):``) or a change's subject, naming no failure."""
    if _FEATURE_REQUEST.match(line) is None and (
            _CHANGE.match(line) is None or _NOT_NEUTRAL.search(line) is not None or any(p.search(line) for _s, p in _SYMPTOMS)):
        return False
    return _FAULT_WORDS.search(line) is None and ERROR_WORDS.search(line) is None and FAILURE_WORDS.search(line) is None


def remarks(lines: list[str]) -> list[int]:
    """The lines (1-based) of a file of prose that states nothing this reader reads (no phrase, no reporter's
    error) which name a diagnostic term: the reporter's remarks about the system, a claim in words no phrase
    here reads ("After the reboot the GPU was visible again."; "CN 110 has had its GPU replaced, tested and
    has been put back into service.", ai4d-iasc/trixie#38). Read as a ``remark``, it keeps the verdict
    inconclusive as any unjudged claim does (it may be the complaint), where the file was once left
    unrecognised. A command typed (its words are what was asked) is no remark, nor a feature request that names no
    failure ("feature request: display what is limiting GPU performance ...": what a tool should do), nor a program's
    failure line (:func:`printed_failure`): what a program printed is no claim, and a remark on its line would count
    the error as judged (the finding cites the line) and leave the verdict inconclusive on an error nobody explains."""
    if not _prose(lines, set()) or reported_errors(lines):
        return []
    explained = explanations(lines)  # knowledge quoted, no claim about this system
    return [n for n, line in enumerate(lines, 1)
            if _terms().search(line) and not _TYPED.match(line) and not shell_command(line) and n not in explained
            and not feature_request(line) and not printed_failure(line)]


# A program's failure line pasted alone, its words three in a row like a sentence's, naming a diagnostic term, in the
# inline code a reporter wraps it in or bare (awslabs/amazon-eks-ami#2062, containerd's task failure, Go's wrapped
# "Error: <a>: <b>: ..." with the NVIDIA hook's stderr at its end):
# `Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: ... stderr: Auto-detected mode as 'legacy' nvidia-container-cli: error parsing IMEX info: unsupported IMEX channel value: all: unknown`
# unrecognised_text's FAILURE_WORDS (an exception's line, "Error: " first, ERROR/FATAL, a signal) tell it, as they
# keep such a line from being a reporter's error (:func:`reported_error`).
_INLINE_CODE = re.compile(r"^\s*`(?P<code>[^`\n]+)`\s*$")


def printed_failure(line: str) -> bool:
    """Whether ``line`` is a program's failure line (unrecognised_text's FAILURE_WORDS), bare or as one inline code."""
    m = _INLINE_CODE.match(line)
    return FAILURE_WORDS.search(m["code"] if m else line) is not None


def nothing_stated(text: str) -> str | None:
    """Why a file no reader recognised may be set aside (coverage ``uninformative``): it is prose
    and states no version, platform, setting, figure or symptom (None when it states one, or is not
    prose). For a file that also names no diagnostic term (knowledge/coverage.yaml
    ``diagnostic_terms``) only: a sentence that names the GPU or the job in words no phrase here
    reads ("GPU 3 keeps disappearing") may be the complaint, and stays unrecognised (inconclusive)."""
    lines = _lines(text)
    if not any(line.strip() for line in lines) or not _prose(lines, set()):
        return None
    if _stated(text) or measurements(lines):
        return None
    return "prose: no artefact, version, setting, figure or symptom stated"


def _count(word: str | None) -> int | None:
    if not word:
        return None
    return int(word) if word.isdigit() else _WORD_NUMBERS.get(word.lower())


def _form_version(fb: FactBuilder, n: int, line: str, label: re.Match[str] | None) -> bool:
    """A bare version answering an issue form's "<software> Version" field (``### NCCL Version`` / ``2.28.9+CUDA12.8``)."""
    sw = label["sw"].strip().lower() if label is not None and label["sw"] else None
    m = _FORM_BARE_VERSION.match(line) if sw in _SOFTWARE else None
    if m is None:
        return False
    fb.add(StatedVersion, n, software=_SOFTWARE[sw], version=m["v"])
    if m["cuda"] and _SOFTWARE[sw] != "cuda":
        fb.add(StatedVersion, n, software="cuda", version=m["cuda"])
    return True


def _versions(fb: FactBuilder, n: int, line: str) -> bool:
    said: list[tuple[str, str]] = []  # (software, version) in the order written, each once a line
    for m in _VERSION.finditer(line):
        sw = _SOFTWARE.get(m["sw"].lower().replace("open mpi", "openmpi"), m["sw"].lower())
        said.append((sw, m["v"]))
        if sw == "nccl" and m["banner"] and m["cuda"] and _BANNER_LINE.match(line):
            fb.add(NcclVersion, n, version=m["v"], cuda=m["cuda"])
        if m["cuda"]:
            said.append(("cuda", m["cuda"]))
    said += [("driver", m["v"]) for m in _DRIVER.finditer(line)]
    said += [("driver_open" if m["open"] else "driver", m["v"]) for m in _DRIVER_PACKAGE.finditer(line)]
    for sw, version in dict.fromkeys(said):
        fb.add(StatedVersion, n, software=sw, version=version)
    return bool(said)


def _platform(fb: FactBuilder, n: int, line: str) -> tuple[bool, list[tuple[int, int]]]:
    found, spans = False, []
    for m in _GPUS.finditer(line):
        product = m["p"] or m["p2"]
        form = (m["f"] or m["f2"] or "").strip()
        fb.add(StatedPlatform, n, what="gpus", count=_count(m["n"] or m["n2"]),
               product=f"{product} {form}".strip() if product else None)
        found = True
    for m in _SYSTEM.finditer(line):
        fb.add(StatedPlatform, n, what="system", product=f"DGX{m['p']}" if m["p"] and m["p"].startswith("-")
               else f"DGX {m['p']}" if m["p"] else m["inst"].lower())
        found = True
    for m in _NODES.finditer(line):
        fb.add(StatedPlatform, n, what="nodes", count=_count(m["n"]))
        found = True
    for m in _NICS.finditer(line):
        if not (m["n"] or m["rate"]):
            continue
        fb.add(StatedPlatform, n, what="nics", count=_count(m["n"]), nic_gbps=float(m["rate"]) if m["rate"] else None,
               product=m["nic"] if m["nic"][:1] in "cCC" else None)
        spans.append(m.span())
        found = True
    for m in _NVSWITCH.finditer(line):
        fb.add(StatedPlatform, n, what="nvswitch", present=not m["neg"])
        found = True
    return found, spans


def _settings(fb: FactBuilder, n: int, line: str) -> bool:
    found = False
    for m in _SETTING.finditer(line):
        fb.add(StatedSetting, n, name=m["name"], value=m["value"].strip("\"'"))
        found = True
    return found


def _cue_before(cue: re.Pattern, first: re.Match | None, line: str, at: int) -> bool:
    """Whether ``cue`` occurs in ``line[:at]`` (what searching that slice says), in time independent of ``at``: the
    line's leftmost match when it ends by ``at`` (its closing ``\\b`` sees the same character, or the end), else
    only a match ending right at ``at`` on the end's boundary, within the cue's length of it (a search of the head
    once a figure was quadratic: a fuzzed 45 kB line of figures took 15 s)."""
    if first is not None and first.end() <= at:
        return True
    return cue.search(line, max(0, at - 20), at) is not None


def _figures(fb: FactBuilder, n: int, line: str, nic_spans: list[tuple[int, int]]) -> bool:
    found, since = False, 0
    busbw, algbw = _BUSBW_CUE.search(line), _ALGBW_CUE.search(line)  # once a line, not once a figure
    for m in _AVG_BUSBW.finditer(line):
        fb.add(StatedFigure, n, quantity="busbw", value=float(m["v"]), unit="GB/s", gb_per_s=float(m["v"]), role="measured")
        found = True
    for m in _FIGURE.finditer(line):
        if any(a <= m.start() < b for a, b in nic_spans):  # a NIC's line rate: stated_platform
            continue
        before = line[since:m.start()]  # the words since the figure before it
        since = m.end()
        role = ("compared" if _COMPARED_CUE.search(before) else "expected" if _EXPECTED_CUE.search(before) else "measured")
        at = m.start()
        quantity = ("busbw" if _cue_before(_BUSBW_CUE, busbw, line, at)
                    else "algbw" if _cue_before(_ALGBW_CUE, algbw, line, at) else "bandwidth")
        v = float(m["v"])
        fb.add(StatedFigure, n, quantity=quantity, value=v, unit=m["u"], gb_per_s=round(v * _TO_GB_S[m["u"]], 6), role=role)
        found = True
    return found


def _codes(fb: FactBuilder, n: int, line: str) -> bool:
    said = reported_codes(line)
    for c in said:
        named = [f"GPU {c.pci_bus_id}" if c.pci_bus_id else "", f"GPU {c.gpu_index}" if c.gpu_index is not None else "",
                 f"node {c.named_node}" if c.named_node else ""]
        fb.add(ReportedFaultCode, n, code_kind=c.code_kind, code=c.code, words=c.words, pci_bus_id=c.pci_bus_id,
               gpu_index=c.gpu_index, named_node=c.named_node, named=", ".join(x for x in named if x) or "no GPU or node")
    return bool(said)


# A reporter's out-of-memory, in a sentence that also states the platform or a version (where a line of prose stating
# nothing is read as a remark, :func:`remarks`; this one was read for its platform alone and the claim was lost):
# OOM 8xH100 using latest GRPO code with vLLM                  (huggingface/trl#2688, its title)
# Not a program's own failure line (:func:`printed_failure`: "torch.OutOfMemoryError: CUDA out of memory. ..."), which
# cuda_app reads as the error it is; not a count of none ("no OOM", "without OOMs"), nor the kernel's oom-killer's words
# (its records are taken off the text before this reader sees it, kernel_records).
_OOM_CLAIM = re.compile(r"(?<!\bno )(?<!\bwithout )(?<![\w-])(?:OOM(?:s|ed)?|(?i:out[ -]of[ -](?:GPU |CUDA |device )?memory))\b")


def _symptom(fb: FactBuilder, n: int, line: str) -> bool:
    for symptom, pattern in _SYMPTOMS:
        m = pattern.search(line)
        if m:
            component = next((c for c, p in _COMPONENT_WORDS if p.search(line)), "application")
            fb.add(ReportedSymptom, n, symptom=symptom, component=component, words=m[0])
            return True
    if (m := _OOM_CLAIM.search(line)) is not None and not printed_failure(line):
        component = next((c for c, p in _COMPONENT_WORDS if p.search(line)), "application")
        fb.add(ReportedSymptom, n, symptom="error", component=component, words=m[0])
        return True
    return False


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = _lines(artefact.text)
    from stethoscope.facts.parsers.unrecognised_text import record_gate_text, record_lines

    if '"msg"' in record_gate_text(artefact) or "msg=" in artefact.text:
        # an application's JSON record read as its message (zap, logrus, slog: unrecognised_text.record_lines), or its
        # logfmt record, is what a program wrote, no reporter's sentence: its level, not its words, says whether it is an
        # error (the gate over the text without its line breaks where rows were joined: a key a cut split, '"ms' / 'g"')
        for n in record_lines(artefact):
            lines[n - 1] = ""
    # a kernel record (dmesg, journalctl -k, talosctl dmesg: kernel_log.record_lines, by its prefix) is what the kernel
    # wrote, no reporter's sentence either: a healthy node's "k3s-node3.lab: kern: info: [...]: [drm] amdgpu kernel
    # modesetting enabled." (siderolabs/pkgs#792) was "the reporter says" it; unrecognised_text reads its errors
    for n in kernel_records(lines):
        lines[n - 1] = ""
    errors = reported_errors(lines)
    measured = measurements(lines)
    if not _stated(artefact.text) and not errors and not measured:
        found = remarks(lines)
        # a line the other fallback reads as the reporter's claim of an error (unrecognised_text.claimed_lines: a title,
        # a template's field or heading with an error word) is that claim, the stronger reading, and no remark as well:
        # Better nccl timeout handling        (pytorch/pytorch#163546, its title: one claim, not a claim and a remark)
        claimed = claimed_lines(artefact) if found else set()
        for n in found:
            if n in claimed:
                continue
            component = next((c for c, p in _COMPONENT_WORDS if p.search(lines[n - 1])), "application")
            fb.add(ReportedSymptom, n, symptom="remark", component=component, words=" ".join(lines[n - 1].split())[:120])
            result.lines_used += 1
        return result
    answers = form_values(lines) if "###" in artefact.text else {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        found, nic_spans = _platform(fb, n, line)
        found = (_versions(fb, n, line) or _form_version(fb, n, line, answers.get(n))) | found
        found = _settings(fb, n, line) | found
        found = _figures(fb, n, line, nic_spans) | found
        found = _codes(fb, n, line) | found
        found = _symptom(fb, n, line) | found
        if n in measured:
            form, what, values = measured[n]
            fb.add(StatedMeasurement, n, form=form, what=what, values=values)
            found = True
        if n in errors and not found:
            component = next((c for c, p in _COMPONENT_WORDS if p.search(line)), "application")
            fb.add(ReportedSymptom, n, symptom="error", component=component, words=ERROR_WORDS.search(line)[0])
            found = True
        result.lines_used += found
    return result

"""Node Health Check (LBNL NHC, and Azure's azurehpc-health-checks on top of it): failed checks.

NHC prints one line per failed check (``die``), under its own name; Azure's distributed runner
prefixes the host. Sample content (Azure/azurehpc-health-checks#162; the real results listed in
that repository's distributed_nhc/README.md; customTests/azure_gpu_nvlink.nhc quotes
``nvidia-smi nvlink -s``'s ``<inactive>`` links as ``Link N: Inactive``, one per line)::

    ERROR:  nhc:  Health check failed:  check_nvlink_status: GPU 0 has nvlinks inactive:     Link 4: Inactive
             Link 5: Inactive
    mynode-273 | ERROR: nhc: Health check failed: check_hw_ib: No IB port mlx5_ib7:1 is ACTIVE (LinkUp 400 Gb/sec).
    mynode-042 | Healthy

Facts emitted: ``nhc_check_failed`` per failure (``check`` "check_hw_ib" where the message names
it, also from NHC's own ``Check check_nv_gpu_count 2 returned 1`` with ``returned`` its exit code;
``aborted`` "watchdog", "timeout" or "signal" where NHC itself did not finish: ``Watchdog timer unable
to terminate hung NHC process N.``, ``Script timed out [while executing "<check>"].``, ``Terminated by
signal SIGTERM.``; ``gpu_check`` for a check of the GPUs by its name (check_nv_*, check_nvsmi_*,
check_gpu*, check_dcgm*); a failure without a host prefix is the node NHC's ``node-mark-offline``
names; ``message``, ``fault_code`` "NHC2016" where given, ``busbw_gbps``/``expected_busbw_gbps``/``loopback``
for an NCCL all-reduce check's ``BUS BW (expected >=431.0 GB/s, but measured 15.1043 GB/s)``; the host prefix, when present, names the
node; distributed NHC's ``host | ERROR: No results reported`` is one too, check None; NHC's hardware checks'
figures: ``measured_kb``/``limit_kb``/``bound`` of check_hw_physmem/mem/swap, ``ib_port``/``hca``/``port``/``expected_rate_gbps``
of check_hw_ib's ``No IB port mlx5_ib0:1 is ACTIVE (LinkUp 200 Gb/sec).``, and ``config_other_machine`` on the latter where
the same output finds the node's memory above the configuration's maximum: Azure/azurehpc-health-checks#14);
``nvlink_link_state`` (source ``nhc``, ``expected`` None: NHC does not name the product)
per inactive link a ``check_nvlink_status`` failure lists, and one with ``all_links`` for "has all
nvlinks inactive". A ``Healthy`` result line is read and yields nothing: NHC's pass is its own
claim, not evidence steth can weigh; so is Azure's pass line (customTests/azure_common.nhc ``pass``:
``echo "SUCCESS:  $NAME:  Health check passed:  $*"``), real (Azure/azurehpc-health-checks#152)::

    SUCCESS:  nhc:  Health check passed:  check_ib_bw_gdr: IB write bandwidth test IB_WRITE_BW passed for IB=mlx5_ib3, IB BW=399.71 Gbps

Azure's warning (azure_common.nhc ``warning``: ``echo "WARNING:  $NAME:  Nearing a failure threshold:  $*"``,
a figure between a check's warning and failure thresholds, e.g. customTests/azure_gpu_bandwidth.nhc
``warning 0 "check_gpu_bw: ${tests_map[$test]} test on GPU $gpu_device has a bandwidth of $gpubw GB/s.
Expected threshold $EXP_BW GB/s."``; no public paste of one seen) is an ``nhc_check_warning``: the check
passed, NHC warns. NHC's syslog form (``syslog_flush``: ``logger -t "nhc[PID]"`` of ``Health check failed:  <msg>``,
two blanks after the colon; the journal's prefix comes off, the host it names is the node) and the detached parent's
``ERROR Health check failed:  <msg>`` are failures too; die()'s line under another prefix (``grep -H``'s file name, a
scheduler's tag) is read, and one no pattern takes is a parse error, never claimed and dropped. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.dcgm import NhcCheckFailed, NhcChecksSummary, NhcCheckWarning  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.lines import MONTH
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.nvidia_smi_nvlink import NvlinkLinkState

KIND = "nhc"

# ERROR:  nhc:  Health check failed:  check_nvlink_status: GPU 0 has nvlinks inactive:     Link 4: Inactive
# mynode-066 | ERROR: nhc: Health check failed: check_gpu_xid: GPU Xid errors detected: [ 3606.832215] NVRM: Xid ...
# mynode-084 | ERROR: nhc: Health check failed: Bandwidth is low on device 1. Reported bandwidth is 7 GB/s.
# [1705939176] - ERROR:  nhc:  Health check failed:  check_all_reduce_dependencies: HPCX_DIR is not set. ...
#     (Azure/azurehpc-health-checks#72, nhc -d): NHC's log()/oecho() put 'PREFIX="[$SECONDS] - "' before every line
#     when TS is set (mej/nhc nhc: TS=${TS:-$DEBUG}, SECONDS then the epoch): _TS below, before any form
_TS = r"(?:\[\d{1,12}\] - )?"
# die()'s line under another program's prefix (a logger's stamp, a scheduler's tag: "[slurm] ", "slurmd: "), up to 200
# characters that end in a blank, a bracket or a colon: read as the line it is; a line of die()'s form that no pattern
# here takes is a parse error (file:line), never claimed and dropped (round rM2; rL6's #72 was dropped so)
_FAILED = re.compile(
    r"^" + _TS + r"(?:(?:NHC-RESULT )?(?P<host>[\w.-]+) \| |[^\n]{0,200}?[\s\]:>])?ERROR:\s+(?P<name>[\w.-]+):\s+Health check failed:\s+"
    r"(?:(?P<check>check_\w+): )?(?P<msg>(?:.*\S)?)\s*$"
)
_DIED = re.compile(r"ERROR:\s+[\w.-]+:\s+Health check failed:")
# CycleCloud's NHC hooks (Azure/azurehpc experimental/cc_slurm_nhc and the az-hop / CycleCloud Slurm projects that took
# them): NHC's node-mark-offline hook, or the script that runs nhc, logs the failure to CycleCloud with jetpack and asks
# for the node's replacement; the hook's own echo says "failed on <host>", the note is NHC's die() message:
#   $JETPACK log "ERROR : Node Health Checks failed - $(hostname) - $PHYSICAL_HOST - $NOTE" --level error
#   echo "$0:  ERROR : Node Health Checks failed on $HOSTNAME - $PHYSICAL_HOST - $NOTE"
#   jetpack log "ERROR : Node Health Checks failed - $(hostname) - $PHYSICAL_HOST" --level error     (no note: nhc exited 1)
# ERROR : Node Health Checks failed - viz3d-1 - AMS081063509028 - Check check_nvsmi_healthmon returned 127
#   (Azure/az-hop#1796, real; PHYSICAL_HOST the Hyper-V host's name from /var/lib/hyperv/.kvp_pool_3, empty where that
#   lookup found none)
_CC_FAILED = re.compile(r"^(?:[^\n]{0,200}?[\s\]:>])?ERROR : Node Health Checks failed(?: on | - )(?P<host>[\w.-]{1,128}) - (?P<phys>\S{0,128})"
                        r"(?: - (?:(?P<check>check_\w+):\s+)?(?P<msg>(?:.*\S)?))?\s*$")
# NHC's syslog form: die() also queues 'syslog "Health check failed:  $*"', which syslog_flush sends as
# 'logger -p daemon.err -t "$NAME[${BASHPID:-$$}]"' (mej/nhc nhc), one message a line; the journal's or syslog's
# prefix taken off by facts/lines.py leaves (CONSTRUCTED from that format; no public paste of it in an even thread):
# Jan 22 16:19:36 gpuu20-1 nhc[39359]: Health check failed:  check_hw_ib:  No IB port mlx5_0:1 is ACTIVE (LinkUp 200 Gb/sec).
# Health check failed:  check_hw_ib:  No IB port mlx5_0:1 is ACTIVE (LinkUp 200 Gb/sec).
# and the detached parent's result on stdout (nhcmain_check_detached: 'echo "ERROR Health check failed:  $MSG"'):
# ERROR Health check failed:  check_fs_mount:  /scratch not mounted
# The two blanks after the colon are NHC's own (die()'s "Health check failed:  $*"): Ceph's monitor's 'Health check
# failed: ' and a proxy's 'health check failed: i/o timeout' take one.
_SYSLOG_FAILED = re.compile(r"^(?:(?P<tag>[\w.-]{1,64})\[\d{1,10}\]: |ERROR )?Health check failed:  "
                            r"(?:(?P<check>check_\w+): )?(?P<msg>(?:.*\S)?)\s*$")
# the host the syslog line names (RFC 3164's 'Mmm dd hh:mm:ss host tag[pid]: ', rsyslog's RFC 3339 stamp), read from the
# line as read (the normaliser took it off)
_SYSLOG_HOST = re.compile(r"^(?:" + MONTH + r" [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?) "
                          r"(?P<host>[\w.-]{1,128}) [\w.-]{1,64}\[\d{1,10}\]: ")
# mynode-108 | ERROR: No results reported          (distributed NHC: the node ran no NHC or reported nothing)
_NO_RESULTS = re.compile(r"^(?:NHC-RESULT )?(?P<host>[\w.-]+) \| ERROR: (?P<msg>No results reported)\s*$")
# mynode-042 | Healthy
# NHC-RESULT mynode-042 | Healthy      (distributed_nhc/onetouch_nhc.sh: 'echo "NHC-RESULT $(hostname) | $cleaned_line"', and
#     "Healthy" where the health log holds no line with ERROR: also after a run that checked nothing, see _AZ_NOT_RUN)
_HEALTHY = re.compile(r"^(?:NHC-RESULT )?(?P<host>[\w.-]+) \| Healthy\s*$")
# Azure's health checks that ran no check (Azure/azurehpc-health-checks run-health-checks.sh and dockerfile/aznhc-entrypoint.sh
# since 2023-08: 'echo "The vm SKU 'standard_$SKU' is currently not supported by Azure health checks." | tee -a $OUTPUT_PATH;
# exit 0', written into the health log itself; 'echo "The conf file $CONF_FILE does not exist. Please specify a valid conf
# file."'; distributed_nhc/onetouch_nhc.sh since 2023-09: 'echo "NHC-RESULT $(hostname) | Failed to run health checks, no log
# file was generated at $HEALTH_LOG_FILE_PATH"'); real (Azure/azurehpc-health-checks#134, a fresh ND H200 v5 VM):
# The vm SKU 'standard_nd96isr_h200_v5' is currently not supported by Azure health checks.
# onetouch_nhc.sh then finds no ERROR in that log and prints "NHC-RESULT <host> | Healthy": a pass of nothing
_AZ_NOT_RUN = re.compile(r"^(?:NHC-RESULT (?P<host>[\w.-]{1,128}) \| )?(?P<msg>The vm SKU '(?:standard_)?(?P<sku>[\w.-]{1,64})' is currently not "
                         r"supported by Azure health checks\.|The conf file (?P<conf>\S{1,400}) does not exist\. Please specify a valid conf file\."
                         r"|Failed to run health checks, no log file was generated at \S{0,400})\s*$", re.M)
# GPU 0 has nvlinks inactive:     Link 4: Inactive          GPU 0 has all nvlinks inactive
_NVLINK_GPU = re.compile(r"GPU (?P<gpu>\d+) has (?P<all>all )?nvlinks inactive")
#          Link 5: Inactive            ... Link 17: Inactive. FaultCode: NHC2016
_INACTIVE = re.compile(r"Link (?P<link>\d+): Inactive\b")
_CONTINUED = re.compile(r"^\s+Link \d+: Inactive\b")
_FAULT = re.compile(r"FaultCode: (?P<code>\w+)")
# check_nccl_allreduce: NCCL allreduce, BUS BW (expected >=431.0 GB/s, but measured 15.1043 GB/s). FaultCode: NHC2010   (azurehpc-health-checks#142)
# mynode-079 | ERROR: nhc: Health check failed: check_nccl_allreduce_ib_loopback: NCCL allreduce, BUS BW (expected >=40.0 GB/s, but measured 20.7377 GB/s)
#     (distributed_nhc/README.md); NHC-derived site scripts print "NCCL allreduce IB loopback, BUS BW (expected > $EXP GB/s, but measured $avg GB/s"
_BUSBW = re.compile(r"NCCL allreduce(?P<loop> (?:IB|EFA) loopback)?, BUS BW \(expected >=? ?(?P<exp>\d+(?:\.\d+)?) GB/s, "
                    r"but measured (?P<got>\d+(?:\.\d+)?) GB/s")
# SUCCESS:  nhc:  Health check passed:  check_ib_bw_gdr: IB write bandwidth test IB_WRITE_BW passed for IB=mlx5_ib3, IB BW=399.71 Gbps
#     (Azure/azurehpc-health-checks#152; customTests/azure_common.nhc: 'echo "SUCCESS:  $NAME:  Health check passed:  $*"')
_PASSED = re.compile(r"^" + _TS + r"(?:(?P<host>[\w.-]+) \| )?SUCCESS:\s+[\w.-]+:\s+Health check passed:")
# customTests/azure_common.nhc: 'echo "WARNING:  $NAME:  Nearing a failure threshold:  $*"' (no public paste of one seen)
_WARNED = re.compile(r"^" + _TS + r"(?:(?P<host>[\w.-]+) \| )?WARNING:\s+[\w.-]+:\s+Nearing a failure threshold:\s+"
                     r"(?:(?P<check>check_\w+): )?(?P<msg>(?:.*\S)?)\s*$")
# NHC's count after a run that checked all (-a), once every check ran (nhc nhcmain_run_checks: 'log "ERROR:  $NAME:  $FAIL_CNT
# health checks failed."', the same through oecho to $LOGFILE, and 'syslog "$FAIL_CNT health checks failed."'); real
# (mej/nhc#152, nhc -ad on a node whose /tmp was full, after its three failures):
# ERROR:  nhc:  3 health checks failed.
# and the syslog form as logger -t "$NAME[PID]" sends it (CONSTRUCTED from that format), its prefix taken off by facts/lines.py:
# Jun 11 19:12:23 cpu001 nhc[1013622]: 3 health checks failed.          3 health checks failed.
_SUMMARY = re.compile(r"^" + _TS + r"(?:(?P<host>[\w.-]+) \| )?(?:ERROR:\s+[\w.-]+:\s+|[\w.-]{1,64}\[\d{1,10}\]: )?"
                      r"(?P<count>\d{1,5}) health checks failed\.\s*$")
# the failed form as NHC's die() writes it ('ERROR:  $NAME:  Health check failed:  $*'), not the bare words: other programs say
# "Health check failed:" too (Ceph's monitor 'log [WRN]: Health check failed:', a proxy's 'health check failed: i/o timeout')
# (NHC's count after nhc -a, _SUMMARY, shares the failure's alternatives: each unanchored prefix is searched once)
_DETECT = re.compile(r"ERROR:\s+[\w.-]+:\s+(?:Health check failed:|\d{1,5} health checks failed\.)|^(?:[^\n]{0,200}?[\s\]:>])?ERROR : Node Health Checks failed(?: on | - )[\w.-]"
                     r"|^(?:[\w.-]{1,64}\[\d{1,10}\]: |ERROR )?Health check failed:  \S"
                     r"|[\w.-]{1,64}\[\d{1,10}\]: (?:Health check failed:  \S|\d{1,5} health checks failed\.)|^[\w.-]+ \| Healthy\s*$|^" + _TS + r"(?:[\w.-]+ \| )?SUCCESS:\s+[\w.-]+:\s+Health check passed:"
                     r"|^" + _TS + r"(?:[\w.-]+ \| )?WARNING:\s+[\w.-]+:\s+Nearing a failure threshold:"
                     r"|^\d{1,5} health checks failed\.\s*$|^NHC-RESULT [\w.-]+ \| Healthy\s*$", re.M)
# NHC's own message for a check that returned non-zero without its own die (nhc: 'die $RET "Check $CHECK returned $RET"',
# $CHECK being the whole nhc.conf line, arguments included):
# ERROR:  nhc:  Health check failed:  Check check_nv_gpu_count 2 returned 1          (NVIDIA/deepops#660)
# a check whose command is missing: the shell's exit status 127 (POSIX "command not found"), and its message where a
# check's own die() quotes it (bash's "<cmd>: command not found", dash's "<script>: <line>: <cmd>: not found"):
# ERROR : Node Health Checks failed - viz3d-1 - AMS081063509028 - Check check_nvsmi_healthmon returned 127   (Azure/az-hop#1796)
# ERROR:  nhc:  Health check failed:  check_nv_healthmon:  /usr/bin/nvidia-smi: command not found   (CONSTRUCTED from bash's form)
_NOT_RUN_RC = 127
_NOT_FOUND = re.compile(r"(?:^|[\s:])(?P<cmd>[\w./+-]{1,128}): (?:command )?not found\b")
_RETURNED = re.compile(r"^Check (?P<check>check_\w{1,64})(?: [^\n]{0,200}?)? returned (?P<rc>\d{1,3})$")
# NHC itself did not finish (nhc: the watchdog's 'die 142 "Watchdog timer unable to terminate hung NHC process ${NHC_PID#-}."',
# the ALRM trap's 'die 142 "Script timed out${CHECK:+ while executing \"$CHECK\"}."', the HUP/INT/TERM traps'
# 'die 1xx "Terminated by signal SIGTERM."'):
# ERROR:  nhc:  Health check failed:  Watchdog timer unable to terminate hung NHC process 16263.   (mej/nhc#134)
_ABORTED = (
    ("watchdog", re.compile(r"^Watchdog timer unable to terminate hung NHC process \d{1,10}\.?$")),
    ("timeout", re.compile(r"^Script timed out(?: while executing \"(?P<check>[^\"\n]{1,200})\")?\.?$")),
    ("signal", re.compile(r"^Terminated by signal SIG[A-Z]{2,8}\.?$")),
)
# the checks of a GPU, by the name's prefix: LBNL NHC's scripts/lbnl_nv.nhc (check_nv_healthmon) and
# csc_nvidia_smi.nhc (check_nvsmi_healthmon), DeepOps' roles/nhc/files/deepops.nhc (check_nv_gpu_count,
# check_nv_drv_version, check_nv_retired_pages, check_nv_pcie_link_width, check_nv_dcgmi_diag), Azure's
# azurehpc-health-checks customTests (check_gpu_xid, check_gpu_count, check_gpu_ecc, check_gpu_bw ...);
# the NCCL all-reduce and NVLink checks have their own readings (busbw_gbps, nvlink_link_state)
_GPU_CHECK = re.compile(r"^check_(?:nv_|nvsmi_|gpu|dcgm)")
# NHC's hardware checks (mej/nhc scripts/lbnl_hw.nhc), the message after "check_hw_physmem:  " (two blanks):
#   die 1 "$FUNCNAME:  Actual RAM size ($HW_RAM_TOTAL kB) less than minimum allowed ($RAM_MIN kB)."
#   die 1 "$FUNCNAME:  Actual RAM size ($HW_RAM_TOTAL kB) greater than maximum allowed ($RAM_MAX kB)."
#   (likewise check_hw_swap's "Actual SWAP size", check_hw_mem's "Actual system memory"); real (Azure/azurehpc-health-checks#14,
#   NDv4's nhc.conf run on an NDv5 VM):
# ERROR:  nhc:  Health check failed:  check_hw_physmem:  Actual RAM size (1961032660 kB) greater than maximum allowed (928858388 kB).
_HW_SIZE = re.compile(r"^\s{0,2}Actual (?:RAM size|SWAP size|system memory) \((?P<got>\d{1,15}) kB\) "
                      r"(?P<how>less than minimum|greater than maximum) allowed \((?P<lim>\d{1,15}) kB\)")
#   die 1 "$FUNCNAME:  No IB port$DEV is $STATE ($PHYS_STATE$RATE)."   ($DEV " mlx5_0:1" or empty, $STATE ACTIVE,
#   $PHYS_STATE LinkUp, $RATE " 200 Gb/sec" or empty): no port (that port) is Active and LinkUp at that rate; real
#   (Azure/azurehpc-health-checks#14, cut by its author after "(LinkUp"; the whole form in this module's docstring):
# ERROR:  nhc:  Health check failed:  check_hw_ib:  No IB port mlx5_ib0:1 is ACTIVE (LinkUp
_HW_IB = re.compile(r"^\s{0,2}No IB port(?: (?P<dev>(?P<hca>[\w.-]{1,64}?)(?::(?P<port>\d{1,3}))?))? is ACTIVE \(LinkUp"
                    r"(?: (?P<rate>\d{1,4}(?:\.\d{1,3})?) Gb/sec)?")
# the node NHC marked offline (helpers/node-mark-offline: 'echo "$0:  Marking $STATUS $HOSTNAME offline:  $LEADER $NOTE"'):
# /usr/libexec/nhc/node-mark-offline:  Marking  wn-1-30 offline:  NHC: Watchdog timer unable to terminate hung NHC process 16263.
_MARK_OFFLINE = re.compile(r"node-mark-offline:\s{1,4}Marking\s{1,3}(?:[\w+-]{1,32}\s{1,3})?(?P<host>[\w.-]{1,128}) offline:")


def detect(head: str) -> bool:
    if "Health check failed" not in head and "| Healthy" not in head and "Health check passed" not in head \
            and "Nearing a failure threshold" not in head and " health checks failed." not in head \
            and "Node Health Checks failed" not in head and "Azure health checks" not in head \
            and "Failed to run health checks" not in head and "Please specify a valid conf file" not in head:
        return False
    return _DETECT.search(head) is not None or _AZ_NOT_RUN.search(head) is not None


def _failed(line: str) -> re.Match[str] | None:
    """A failure's line in NHC's form (_FAILED) or its syslog form (_SYSLOG_FAILED)."""
    if (m := _FAILED.match(line)) is not None:
        return m
    if "Health Checks failed" in line:
        return _CC_FAILED.match(line)
    if line.startswith(("Health", "ERROR ")) or "]: Health" in line:
        return _SYSLOG_FAILED.match(line)
    return None


def _node(m: re.Match[str], artefact: Artefact, n: int, marked: str | None) -> str | None:
    """The node a failure's line names: its host prefix, else the node NHC marked offline, else the syslog prefix's host."""
    node = m.groupdict().get("host") or marked
    if node is None and "host" not in m.groupdict() and artefact.raw_text is not None:  # (the syslog form's)
        h = _SYSLOG_HOST.match(artefact.raw_line(n))
        node = h["host"] if h else None
    return node


def _hw(msg: str) -> dict:
    """The figures of an NHC hardware check's message (_HW_SIZE, _HW_IB), as NhcCheckFailed's fields."""
    if (s := _HW_SIZE.match(msg)) is not None:
        return {"measured_kb": int(s["got"]), "limit_kb": int(s["lim"]), "bound": "max" if s["how"].startswith("greater") else "min"}
    if (i := _HW_IB.match(msg)) is not None:
        return {"ib_port_not_active": True, "ib_port": i["dev"], "hca": i["hca"] if i["dev"] else None,
                "port": int(i["port"]) if i["port"] else None, "expected_rate_gbps": float(i["rate"]) if i["rate"] else None}
    return {}


def _links(b: FactBuilder, n: int, text: str, gpu: int, node: str | None) -> None:
    for m in _INACTIVE.finditer(text):
        b.add(NvlinkLinkState, n, node=node, gpu=f"GPU{gpu}", gpu_index=gpu, link=int(m["link"]), state="inactive",
              source="nhc")


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    nvlink: tuple[int, str | None] | None = None  # (gpu, node) of the nvlink failure whose link lines follow
    # NHC's log names the node it marks offline; a failure line without a host prefix is that node's
    marked = next((m["host"] for m in map(_MARK_OFFLINE.search, artefact.lines) if m), None) \
        if "node-mark-offline" in artefact.text else None
    listed = 0  # failed checks read since the last summary
    # the nodes whose NHC finds more memory than its configuration allows (that configuration is another machine's:
    # the IB rate it expects may be too), found before the failures are read
    bigger = {_node(m, artefact, n, marked) for n, line in enumerate(artefact.lines, 1)
              if "greater than maximum allowed" in line and (m := _failed(line)) is not None and m["check"] is not None
              and m["check"].startswith("check_hw_") and _hw(m["msg"]).get("bound") == "max"} \
        if "greater than maximum allowed" in artefact.text else set()
    for n, line in enumerate(artefact.lines, 1):
        if nvlink is not None and _CONTINUED.match(line):
            _links(b, n, line, *nvlink)
            result.lines_used += 1
            continue
        nvlink = None
        if ("Health check failed" in line or "Health Checks failed" in line) and (m := _failed(line)) is not None:
            node = _node(m, artefact, n, marked)
            msg = m["msg"] or ""  # (CycleCloud's form without NHC's note: none)
            fault = _FAULT.search(line)
            bw = _BUSBW.search(msg) if "BUS BW" in line else None
            check, returned, aborted = m["check"], None, None
            if check is None and (r := _RETURNED.match(msg)) is not None:
                check, returned = r["check"], int(r["rc"])
            elif check is None:
                for how, pat in _ABORTED:
                    if (a := pat.match(msg)) is not None:
                        aborted = how
                        check = (a.groupdict().get("check") or "").split(" ")[0] or None  # $CHECK: the name, then its arguments
                        break
            hw = _hw(msg) if check is not None and check.startswith("check_hw_") else {}
            if returned == _NOT_RUN_RC or (nf := _NOT_FOUND.search(msg)) is not None:
                hw["could_not_run"] = True
                hw["missing_command"] = None if returned == _NOT_RUN_RC else nf["cmd"].rsplit("/", 1)[-1]
            if hw.get("ib_port_not_active") and node in bigger:
                hw["config_other_machine"] = True
            b.add(NhcCheckFailed, n, node=node, check=check, message=msg, fault_code=fault["code"] if fault else None,
                  busbw_gbps=float(bw["got"]) if bw else None, expected_busbw_gbps=float(bw["exp"]) if bw else None,
                  loopback=bool(bw and (bw["loop"] or "loopback" in (check or ""))), returned=returned, aborted=aborted,
                  gpu_check=bool(check and _GPU_CHECK.match(check)), **hw)
            listed += 1
            if (g := _NVLINK_GPU.search(msg)) is not None:
                gpu = int(g["gpu"])
                if g["all"]:
                    b.add(NvlinkLinkState, n, node=node, gpu=f"GPU{gpu}", gpu_index=gpu, link=None, all_links=True,
                          state="inactive", source="nhc")
                else:
                    _links(b, n, msg, gpu, node)
                    nvlink = (gpu, node)
            result.lines_used += 1
        elif " health checks failed." in line and (m := _SUMMARY.match(line)) is not None:
            node = m["host"] or marked
            if node is None and artefact.raw_text is not None:  # the syslog form's host, where the prefix named it
                h = _SYSLOG_HOST.match(artefact.raw_line(n))
                node = h["host"] if h else None
            b.add(NhcChecksSummary, n, node=node, failed=int(m["count"]), listed=listed)
            listed = 0
            result.lines_used += 1
        elif "Health check failed" in line and _DIED.search(line) is not None:
            b.error(n, f"NHC's failed check in a form not read: {line.strip()[:160]!r}")  # claimed: never dropped unsaid
        elif "No results" in line and (m := _NO_RESULTS.match(line)) is not None:
            b.add(NhcCheckFailed, n, node=m["host"], check=None, message=m["msg"])
            result.lines_used += 1
        elif "Healthy" in line and _HEALTHY.match(line):
            result.lines_used += 1
        elif ("health checks" in line or "conf file" in line) and (m := _AZ_NOT_RUN.match(line)) is not None:
            configless = m["sku"] is not None or m["conf"] is not None
            b.add(NhcCheckFailed, n, node=m["host"] or marked, check=None, message=m["msg"], could_not_run=not configless,
                  no_config=configless, sku=m["sku"])
            result.lines_used += 1
        elif "Health check passed" in line and _PASSED.match(line):
            result.lines_used += 1
        elif "Nearing a failure threshold" in line and (m := _WARNED.match(line)) is not None:
            b.add(NhcCheckWarning, n, node=m["host"] or marked, check=m["check"], message=m["msg"],
                  gpu_check=bool(m["check"] and _GPU_CHECK.match(m["check"])))
            result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT, _AZ_NOT_RUN)

"""NHC's NCCL all-reduce checks: the figures of the failed check (Azure azurehpc-health-checks)."""
from __future__ import annotations

from pathlib import Path

from parse_helper import parse_fixture

from stethoscope.facts.parsers import nhc_log
from stethoscope.facts.parsers.base import Artefact

CASE_1603 = Path(__file__).resolve().parents[2] / "fixtures/harvest/cases/" \
    "1603-healthy-nhc-nccl-allreduce-low-bw-artifact-of-topo-file-manual-run-480gbs/other.txt"


def _bw(res):
    return [(f.node, f.check, f.busbw_gbps, f.expected_busbw_gbps, f.loopback) for f in res.facts if f.busbw_gbps]


def test_allreduce_check_figures() -> None:
    (f,) = parse_fixture(nhc_log, text=CASE_1603.read_text()).facts  # azurehpc-health-checks#142
    assert (f.check, f.busbw_gbps, f.expected_busbw_gbps, f.loopback, f.fault_code) == (
        "check_nccl_allreduce", 15.1043, 431.0, False, "NHC2010")


def test_ib_loopback_check_figures() -> None:
    res = parse_fixture(nhc_log, "nhc/azurehpc_distributed_nhc_results.txt")
    assert _bw(res) == [("mynode-079", "check_nccl_allreduce_ib_loopback", 20.7377, 40.0, True)]


def test_site_script_form_without_closing_paren() -> None:
    line = ("ERROR: nhc: Health check failed: check_nccl_allreduce_ib_loopback: NCCL allreduce IB loopback, "
            "BUS BW (expected > 40 GB/s, but measured 18.5 GB/s\n")
    assert _bw(parse_fixture(nhc_log, text=line)) == [("n1", "check_nccl_allreduce_ib_loopback", 18.5, 40.0, True)]


def test_check_returned_form_names_the_check() -> None:
    (f,) = parse_fixture(nhc_log, "nhc/deepops660_nhc_check_returned.txt").facts  # NVIDIA/deepops#660
    assert (f.check, f.returned, f.aborted, f.gpu_check) == ("check_nv_gpu_count", 1, None, True)


def test_watchdog_hang_is_nhcs_own_and_takes_the_node_marked_offline() -> None:
    (f,) = parse_fixture(nhc_log, "nhc/nhc134_watchdog_hung_mark_offline.log").facts  # mej/nhc#134
    assert (f.node, f.check, f.aborted, f.gpu_check, f.evidence.line) == ("wn-1-30", None, "watchdog", False, 6)


def test_nhc_own_failure_forms() -> None:
    # nhc's ALRM and TERM traps (mej/nhc nhc: 'Script timed out${CHECK:+ while executing "$CHECK"}.', 'Terminated by signal SIGTERM.')
    text = ("ERROR:  nhc:  Health check failed:  Script timed out while executing \"check_nv_healthmon\".\n"
            "ERROR:  nhc:  Health check failed:  Script timed out.\n"
            "ERROR:  nhc:  Health check failed:  Terminated by signal SIGTERM.\n"
            "ERROR:  nhc:  Health check failed:  check_hw_ib:  No IB port mlx5_0:1 is ACTIVE (LinkUp 200 Gb/sec).\n")
    got = [(f.check, f.aborted, f.gpu_check) for f in parse_fixture(nhc_log, text=text).facts]
    assert got == [("check_nv_healthmon", "timeout", True), (None, "timeout", False), (None, "signal", False),
                   ("check_hw_ib", None, False)]


def test_node_mark_offline_with_and_without_the_state() -> None:
    # helpers/node-mark-offline: "Marking $STATUS $HOSTNAME offline:  $LEADER $NOTE" ($STATUS empty before NHC read it)
    for line, host in (("/usr/libexec/nhc/node-mark-offline:  Marking  wn-1-30 offline:  NHC: x", "wn-1-30"),
                       ("/usr/libexec/nhc/node-mark-offline:  Marking idle+drain gpu-7 offline:  NHC: x", "gpu-7")):
        text = f"ERROR:  nhc:  Health check failed:  Script timed out.\n{line}\n"
        (f,) = parse_fixture(nhc_log, text=text).facts
        assert (f.node, f.aborted) == (host, "timeout")


AZ152 = "nhc/azurehpc152_ib_write_bw_passed.txt"


def test_azure_pass_lines_are_read_and_yield_nothing() -> None:
    # Azure/azurehpc-health-checks#152: customTests/azure_common.nhc pass(): 'echo "SUCCESS:  $NAME:  Health check passed:  $*"'
    res = parse_fixture(nhc_log, AZ152)
    assert nhc_log.detect((Path(__file__).resolve().parents[2] / "fixtures/artefacts" / AZ152).read_text())
    assert res.facts == [] and res.lines_used == 8


def test_azure_warning_line_is_a_warning_not_a_failure() -> None:
    # CONSTRUCTED from customTests/azure_common.nhc warning() ('echo "WARNING:  $NAME:  Nearing a failure threshold:  $*"')
    # and azure_gpu_bandwidth.nhc's message; no public paste of one seen
    text = ("WARNING:  nhc:  Nearing a failure threshold:  check_gpu_bw: H2D test on GPU 3 has a bandwidth of 24.1 GB/s. "
            "Expected threshold 23 GB/s.\n")
    assert nhc_log.detect(text)
    (f,) = parse_fixture(nhc_log, text=text).facts
    assert (f.kind, f.check, f.gpu_check) == ("nhc_check_warning", "check_gpu_bw", True)
    assert f.message.startswith("H2D test on GPU 3 has a bandwidth of 24.1 GB/s")


def test_other_programs_success_and_warning_lines_are_not_nhcs() -> None:
    for line in ("SUCCESS: all tests passed\n", "WARNING: Health check passed with notes\n",
                 "WARNING:  nhc:  Health check passed:  x\n"):
        assert not nhc_log.detect(line)
        a = Artefact(path="t.txt", text=line, node="n1")
        a.normalise()
        assert nhc_log.parse(a).facts == []


def test_nhc_timestamp_prefix_of_debug_runs() -> None:
    # Azure/azurehpc-health-checks#72 (nhc -d): mej/nhc log()/oecho() 'PREFIX="[$SECONDS] - "' when TS is on (TS=${TS:-$DEBUG});
    # the failure under it was claimed by the signature and read as nothing before
    res = parse_fixture(nhc_log, "nhc/azurehpc72_nhc_debug_timestamps.txt")
    (f,) = res.facts
    assert (f.kind, f.check, f.evidence.line, f.gpu_check) == ("nhc_check_failed", "check_all_reduce_dependencies", 9, False)
    assert f.message.startswith("HPCX_DIR is not set.")
    # the same prefix on Azure's pass line (oecho) is read; NHC's own DEBUG lines under it are not results
    line = ("[1705939176] - SUCCESS:  nhc:  Health check passed:  check_ib_bw_gdr: IB write bandwidth test IB_WRITE_BW "
            "passed for IB=mlx5_ib3, IB BW=399.71 Gbps\n[0] - DEBUG:  NHC process 39359 is session leader.\n")
    res = parse_fixture(nhc_log, text=line)
    assert res.facts == [] and res.lines_used == 1


def test_other_programs_health_check_failed_is_not_nhcs() -> None:
    # the words alone are not NHC's form (die(): 'ERROR:  $NAME:  Health check failed:  $*'): Ceph's monitor
    # ('log_channel(cluster) log [WRN]: Health check failed:', a public knowledge-base page) and a proxy's warning
    for line in ("log_channel(cluster) log [WRN]: Health check failed:\n",
                 "outbound/wireguard[DE]: health check failed: i/o timeout\n"):
        assert not nhc_log.detect(line)


def test_nhc_syslog_and_detached_forms() -> None:
    # round rM2, CONSTRUCTED from mej/nhc nhc (no public paste in an even thread): die() queues
    # 'syslog "Health check failed:  $*"', syslog_flush sends it through 'logger -p daemon.err -t "$NAME[$PID]"'; the
    # journal's prefix comes off (facts/lines.py), the host it names is the node; rsyslog's RFC 3339 stamp the same
    text = ("Jan 22 16:19:36 gpuu20-1 nhc[39359]: Health check failed:  check_hw_ib:  No IB port mlx5_0:1 is ACTIVE "
            "(LinkUp 200 Gb/sec).\n"
            "2025-06-11T19:12:23.050922+00:00 cpu001 nhc[1013622]: Health check failed:  Script timed out.\n")
    a, b = parse_fixture(nhc_log, text=text).facts
    assert (a.node, a.check, a.evidence.line) == ("gpuu20-1", "check_hw_ib", 1)
    assert (b.node, b.check, b.aborted) == ("cpu001", None, "timeout")
    # the detached parent's result (nhcmain_check_detached: 'echo "ERROR Health check failed:  $MSG"'), the file's node
    (f,) = parse_fixture(nhc_log, text="ERROR Health check failed:  check_fs_mount:  /scratch not mounted\n").facts
    assert (f.node, f.check) == ("n1", "check_fs_mount")
    # must not: the words with one blank (Ceph's monitor, a proxy) under a syslog tag are no NHC's
    for line in ("Jun 11 19:12:23 cpu001 ceph-mon[1013622]: Health check failed: 1 MDSs report slow requests\n",
                 "Health check failed: i/o timeout\n"):
        a = Artefact(path="t.txt", text=line, node="n1")
        a.normalise()
        assert not nhc_log.detect(a.text), line


def test_die_line_under_another_prefix_is_read_or_an_error() -> None:
    # round rM2 (rL6's "noticed"): die()'s line under another program's prefix was detected (the signature takes any
    # prefix) and not parsed: claimed and dropped. grep -H over NHC's log (mej/nhc#134's line) and a scheduler's tag
    for line in ("/var/log/nhc.log:ERROR:  nhc:  Health check failed:  check_fs_mount:  /grid/lustre not mounted\n",
                 "20230502 14:47:40 [slurm] ERROR:  nhc:  Health check failed:  check_fs_mount:  /grid/lustre not mounted\n"):
        (f,) = parse_fixture(nhc_log, text=line).facts
        assert (f.check, f.node) == ("check_fs_mount", "n1"), line
    # a prefix the reader does not take (over 200 characters, or glued to ERROR) is a parse error naming the line
    for line in ("x" * 300 + " ERROR:  nhc:  Health check failed:  check_fs_mount:  /grid/lustre not mounted\n",
                 "nodeERROR:  nhc:  Health check failed:  check_fs_mount:  /grid/lustre not mounted\n"):
        res = parse_fixture(nhc_log, text=line)
        assert res.facts == [] and [e.line for e in res.errors] == [1], line


def test_check_all_count_after_its_failures():
    # mej/nhc#152: nhc -ad, three failures then 'ERROR:  nhc:  3 health checks failed.' (nhc nhcmain_run_checks)
    facts = parse_fixture(nhc_log, "nhc/nhc152_check_all_three_failed.txt").facts
    assert [f.kind for f in facts] == ["nhc_check_failed"] * 3 + ["nhc_checks_summary"]
    s = facts[-1]
    assert (s.failed, s.listed, s.evidence.line, s.evidence.text) == (3, 3, 9, "ERROR:  nhc:  3 health checks failed.")


def test_the_count_alone_and_its_syslog_form():
    # CONSTRUCTED from nhc's 'syslog "$FAIL_CNT health checks failed."' (logger -t "nhc[PID]") and its log form
    (s,) = parse_fixture(nhc_log, text="Jun 11 19:12:23 cpu001 nhc[1013622]: 2 health checks failed.\n").facts
    assert (s.kind, s.node, s.failed, s.listed) == ("nhc_checks_summary", "cpu001", 2, 0)
    text = ("ERROR:  nhc:  Health check failed:  check_fs_mount:  /scratch not mounted\nERROR:  nhc:  1 health checks failed.\n"
            "ERROR:  nhc:  2 health checks failed.\n")
    assert [(f.kind, getattr(f, "listed", None)) for f in parse_fixture(nhc_log, text=text).facts] == [
        ("nhc_check_failed", None), ("nhc_checks_summary", 1), ("nhc_checks_summary", 0)]


def test_other_programs_counts_are_not_nhcs():
    # real lines of other tools' summaries (found with the code index's exact-string search): no digit count, not NHC's
    for text in ("Some health checks failed. See logs above for details.\n", "❌ Some health checks failed.\n"):
        assert not nhc_log.detect(text)


def _hw(res):
    return [(f.node, f.check, f.bound, f.measured_kb, f.limit_kb, f.ib_port_not_active, f.ib_port, f.hca, f.port,
             f.expected_rate_gbps, f.config_other_machine) for f in res.facts if f.kind == "nhc_check_failed"]


def test_hardware_checks_memory_bound_and_ib_port() -> None:
    # Azure/azurehpc-health-checks#14 (verbatim): NDv4's nhc.conf on an NDv5 VM, the IB line cut after '(LinkUp'
    res = parse_fixture(nhc_log, "nhc/azurehpc14_ndv4_conf_on_ndv5.txt")
    assert _hw(res) == [
        ("n1", "check_hw_physmem", "max", 1961032660, 928858388, False, None, None, None, None, False),
        ("n1", "check_hw_ib", None, None, None, True, "mlx5_ib0:1", "mlx5_ib0", 1, None, True)]
    # Azure's distributed NHC (verbatim): the whole form, no memory check above its maximum on that node
    dist = [r for r in _hw(parse_fixture(nhc_log, "nhc/azurehpc_distributed_nhc_results.txt")) if r[1] == "check_hw_ib"]
    assert dist == [("mynode-273", "check_hw_ib", None, None, None, True, "mlx5_ib7:1", "mlx5_ib7", 1, 400.0, False)]


def test_hardware_check_forms_of_lbnl_hw() -> None:
    # CONSTRUCTED from mej/nhc scripts/lbnl_hw.nhc's die messages: a minimum, swap and system memory, an IB port
    # check with neither device nor rate; another host's memory above its maximum does not mark this one's IB check
    text = ("ERROR:  nhc:  Health check failed:  check_hw_swap:  Actual SWAP size (10 kB) less than minimum allowed (20 kB).\n"
            "ERROR:  nhc:  Health check failed:  check_hw_ib:  No IB port is ACTIVE (LinkUp).\n"
            "a1 | ERROR: nhc: Health check failed: check_hw_mem: Actual system memory (30 kB) greater than maximum allowed (20 kB).\n"
            "a2 | ERROR: nhc: Health check failed: check_hw_ib: No IB port mlx5_0 is ACTIVE (LinkUp 100 Gb/sec).\n")
    assert _hw(parse_fixture(nhc_log, text=text)) == [
        ("n1", "check_hw_swap", "min", 10, 20, False, None, None, None, None, False),
        ("n1", "check_hw_ib", None, None, None, True, None, None, None, None, False),
        ("a1", "check_hw_mem", "max", 30, 20, False, None, None, None, None, False),
        ("a2", "check_hw_ib", None, None, None, True, "mlx5_0", "mlx5_0", None, 100.0, False)]


def test_aznhc_sku_not_supported_of_azurehpc134() -> None:
    # verbatim: run-health-checks.sh with no conf for an ND H200 v5 VM ran no check (exit 0)
    res = parse_fixture(nhc_log, "nhc/azurehpc134_sku_not_supported.txt")
    (f,) = res.facts
    assert (f.evidence.line, f.check, f.no_config, f.could_not_run, f.sku) == (18, None, True, False, "nd96isr_h200_v5")


def test_aznhc_onetouch_results_name_their_host() -> None:
    # CONSTRUCTED from distributed_nhc/onetouch_nhc.sh's 'NHC-RESULT $(hostname) | $cleaned_line' and its failure to run,
    # and run-health-checks.sh's missing conf line; a 'Healthy' result is read and gives no fact
    text = ("NHC-RESULT gpu-07 | Healthy\n"
            "NHC-RESULT gpu-08 | ERROR:  nhc:  Health check failed:  check_gpu_count: Expected 8 GPU(s), found 7\n"
            "NHC-RESULT gpu-09 | Failed to run health checks, no log file was generated at /tmp/aznhc.log\n"
            "The conf file /opt/azurehpc/conf/custom.conf does not exist. Please specify a valid conf file.\n")
    res = parse_fixture(nhc_log, text=text)
    assert [(f.node, f.check, f.could_not_run, f.no_config) for f in res.facts] == [
        ("gpu-08", "check_gpu_count", False, False), ("gpu-09", None, True, False), ("n1", None, False, True)]
    assert res.lines_used == 4

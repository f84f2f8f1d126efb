"""Never a false HEALTHY on mixed pastes (session 26, A8: bench/fragment_audit.py --mix, bench/fragment_audit_s26.md).

A ticket pastes two artefacts into one file: a kernel window then an nvidia-smi one, a traceback among NCCL lines. Each
case below joins real lines of two fixtures, as the audit's mixed windows did, and read HEALTHY before: the part one
reader read vouched for the file while the other part (an error line, a cut block, a diagnostic that gave no verdict)
went unseen, or lines that alone check nothing claimed a component. The near misses keep what the lines do show.
"""
from pathlib import Path

import pytest

import small_bundle

ROOT = Path(__file__).resolve().parent.parent
ART = ROOT / "fixtures" / "artefacts"
CASES = ROOT / "fixtures" / "harvest" / "cases"


def _lines(path: Path, first: int, last: int) -> str:
    """Lines first..last (1-based, inclusive) of a real file."""
    return "\n".join(path.read_text().splitlines()[first - 1:last])


def _case(prefix: str, name: str) -> Path:
    [path] = CASES.glob(f"{prefix}-*/{name}")
    return path


def _diagnose(tmp_path: Path, ruleset, text: str):
    rep = small_bundle.diagnose(tmp_path, {"paste.txt": text + "\n"}, ruleset)
    return rep, {c.component for c in rep.checked}


ASYNC = ART / "nccl_log" / "dsexamples310_async_client_rereg_cut.log"  # DeepSpeedExamples#310: Init COMPLETE x8, async events


def test_nccl_warn_lines_alone_check_nothing(ruleset, tmp_path):
    # two 'NET/IB : Got async event : client reregistration' WARNs (catalogue: info, the SM asked the port to register
    # again) read HEALTHY 'checked: nccl, network': an event is not a communicator at work; the finding is still shown
    text = "\n".join(ln for ln in ASYNC.read_text().splitlines() if "Got async event : client reregistration" in ln)
    rep, checked = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict == "inconclusive" and not checked, rep.reason
    assert [f.rule for f in rep.findings] == ["ib_async_event_catalogue"]


def test_near_miss_nccl_warn_beside_init_complete_still_checks(ruleset, tmp_path):
    # the same WARNs under the ranks' Init COMPLETE lines: the communicators formed (the accepted class)
    text = "\n".join(ln for ln in ASYNC.read_text().splitlines()[1:11] if ln.strip())
    rep, checked = _diagnose(tmp_path, ruleset, text)
    # NCCL checked; the network not: no channel via NET, no nNodes line (round rO2: an Init COMPLETE alone moved nothing
    # over the network)
    assert rep.verdict == "healthy" and "nccl" in checked and "network" not in checked, rep.reason


def test_a_dcgm_error_other_work_caused_checks_nothing_beside_other_lines(ruleset, tmp_path):
    # DCGM#56's profiling-module error (dcgm_error_not_comparable: no verdict) inside an ibv_devinfo port block (harvest
    # 101, NVIDIA/nccl#426): alone it gave no verdict, beside the port's lines the file claimed 'gpu' (read HEALTHY)
    port = _lines(_case("101", "ibstat-ibv_devinfo.txt"), 11, 12).splitlines()
    text = "\n".join([port[0], (ART / "dcgm_log" / "dcgm56_profiling_module_error.txt").read_text().strip(), port[1]])
    rep, checked = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict != "healthy" and "gpu" not in checked, rep.reason


def test_a_preflight_diag_failure_other_work_caused_checks_nothing_beside_ldd(ruleset, tmp_path):
    # NVSentinel's preflight 'Test fail' of a diag the tester disturbed (harvest 1308, NVIDIA/NVSentinel#1358: no
    # verdict) with an ldd listing pasted inside (harvest 2607, NVIDIA/nccl#76): read HEALTHY 'checked: gpu'
    app = _case("1308", "app.txt").read_text().splitlines()
    text = "\n".join([app[0], *_lines(_case("2607", "ldd.txt"), 1, 3).splitlines(), app[1]])
    rep, checked = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict != "healthy" and "gpu" not in checked, rep.reason


def test_an_ibstat_port_block_pasted_from_its_physical_state_on_is_cut_short(ruleset, tmp_path):
    # gpud#482's port from 'Physical state: Polling' on (its 'Port 1:' and 'State: Down' above the paste), then vLLM's
    # NCCL Init COMPLETE (harvest 2107, vllm-project/vllm#9920): read HEALTHY 'checked: nccl, network'
    ibstat = ART / "ibstat" / "gpud482_polling_with_lid.txt"
    text = _lines(ibstat, 10, 13) + "\n\n" + _lines(_case("2107", "vllm.log"), 2, 4)
    rep, _ = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict == "inconclusive" and [h.limit for h in rep.coverage.limits] == ["cut_short"], rep.reason



def test_near_miss_the_whole_ibstat_port_block_is_read_as_before(ruleset, tmp_path):
    # gpud#482's whole block: a port Down and Polling, no limit
    rep, _ = _diagnose(tmp_path, ruleset, (ART / "ibstat" / "gpud482_polling_with_lid.txt").read_text().strip())
    assert rep.verdict == "faulty" and not rep.coverage.limits, rep.reason


def test_julia_test_errors_after_nccl_lines_are_unexplained_errors(ruleset, tmp_path):
    # Julia's Test 'Error During Test' / 'Got an exception of type CUDAdrv.CuError outside of a @test' (harvest 185,
    # JuliaGPU/CUDAdrv.jl#106: an uncorrectable ECC error at context creation) after an NCCL Init COMPLETE (harvest
    # 2007, sgl-project/sglang#4978): the NCCL reader took the file, the failure lines were no reader's (read HEALTHY)
    text = _lines(_case("2007", "sglang.log"), 1, 1) + "\n\n" + _lines(_case("185", "app.txt"), 1, 3)
    rep, _ = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict == "faulty", rep.reason
    assert any("Error During Test" in ev.text for f in rep.findings if f.rule == "unexplained_error" for ev in f.evidence)


ROW_REMAPPER = ART / "nvidia_smi_q" / "nvidia-smi-q-ROW_REMAPPER.txt"  # an H200's -q -d ROW_REMAPPER, two GPUs


@pytest.mark.parametrize("first, last, verdict", [
    # GPU 00:07.0's block from 'Uncorrectable Error' to 'Remapping Failure Occurred': no correctable count, no
    # histogram (read HEALTHY 'checked: gpu_memory' after a sinfo line in the audit's mixed seed 119)
    (28, 31, "inconclusive"),
    # near misses: every count shown 0 (no spare row used: each bank at Max), histogram cut or shown (A7's question)
    (24, 31, "healthy"),
    (25, 31, "healthy"),
    (24, 37, "healthy"),
])
def test_remapped_rows_cut_before_the_histogram(ruleset, tmp_path, first, last, verdict):
    rep, checked = _diagnose(tmp_path, ruleset, _lines(ROW_REMAPPER, first, last))
    assert rep.verdict == verdict and ("gpu_memory" in checked) == (verdict == "healthy"), rep.reason


# --- class X (session 27, A9: engine/foreign_runs.py): a run of another program's lines that no reader of the file
# reads. Each case is a window the audit's --mix seeds 123 / 125 read HEALTHY; alone the run reads an unexplained
# error, a reporter's claim, or unrecognised, and beside the recognised lines it now reads so too.

def _rows(path: Path, first: int, last: int) -> list[str]:
    """The non-blank lines among lines first..last (1-based) of a real file (the audit's windows skip blank lines)."""
    return [ln for ln in path.read_text().splitlines()[first - 1:last] if ln.strip()]


QUERY_CSV = ART / "nvidia_smi_util" / "query-gpu-timestamp.csv"
DMON = ART / "nvidia_smi_util" / "dmon_TD_mutc.txt"


def test_perftest_cm_failures_inside_a_query_gpu_csv(ruleset, tmp_path):
    # linux-rdma/perftest#54's 'ERRNO: No such file or directory.' / 'Failed to connect RDMA CM events.' after the
    # CSV's fifth line (seed 123): a non-log kind had no unread-failure search at all (read HEALTHY 'checked: gpu')
    csv = _rows(QUERY_CSV, 1, 7)
    text = "\n".join(csv[:5] + _rows(ART / "perftest" / "perftest54_rdma_cm_rejected.txt", 7, 9) + csv[5:])
    rep, _ = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict != "healthy", rep.reason


def test_a_reporters_paragraph_inside_dmon_rows(ruleset, tmp_path):
    # NVIDIA/nccl#384's prose of a bandwidth gap and its environment fields after dmon's first header line (seed 123):
    # ticket_prose's stated figures and versions check nothing, the rows did (read HEALTHY 'checked: gpu')
    dmon = _rows(DMON, 1, 9)
    text = "\n".join(dmon[:1] + _rows(ART / "ticket_prose" / "nccl384_shm_figures_env_fields.txt", 1, 9) + dmon[1:7])
    rep, _ = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict == "inconclusive" and [h.limit for h in rep.coverage.limits] == ["unread_run"], rep.reason
    assert rep.coverage.limits[0].line == 2


def test_compute_sanitizer_frames_around_an_nvlink_list(ruleset, tmp_path):
    # triton-lang/triton#10486's 'Saved host backtrace up to driver entry point at error' and its frames (the error
    # line above them cut) around NVIDIA/nccl-tests#228's nvlink -s lines of GPU 1 (seed 123: HEALTHY 'checked: nvlink')
    san = _rows(ART / "compute_sanitizer" / "triton10486_program_hit.txt", 3, 9)
    text = "\n".join(san[:6] + _rows(ART / "nvidia_smi_nvlink" / "nccl_tests228_a100_sxm4_nvlink_s_elided.txt", 14, 19) + san[6:])
    rep, _ = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict == "faulty" and any(
        "Saved host backtrace" in ev.text for f in rep.findings if f.rule == "unexplained_error" for ev in f.evidence), rep.reason


def test_a_warmup_line_of_its_own_before_an_nccl_log(ruleset, tmp_path):
    # harvest 132 (huggingface/huggingface_hub#4134): '[warmup] fabric manager never reported Completed; trying
    # anyway' (no error word), a blank line, then vLLM's NCCL lines (harvest 2107, vllm-project/vllm#9920; seed 125)
    text = _lines(_case("132", "app.txt"), 7, 7) + "\n\n" + _lines(_case("2107", "vllm.log"), 2, 4)
    rep, _ = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict == "inconclusive", rep.reason


def test_ipython_frames_before_an_nvtop_device_line(ruleset, tmp_path):
    # harvest 1102 (pytorch/pytorch#119932): IPython's frames of 'import torch' cut before the ImportError, then
    # nvtop's device line (harvest 118, Syllo/nvtop#6; seed 125: HEALTHY 'checked: gpu')
    text = _lines(_case("1102", "app.txt"), 3, 9) + "\n\n" + _lines(_case("118", "other.txt"), 1, 1)
    rep, _ = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict == "inconclusive" and [h.limit for h in rep.coverage.limits] == ["unread_run"], rep.reason


def test_a_hung_tasks_frames_inside_dmon_rows(ruleset, tmp_path):
    # aws/aws-parallelcluster#1150's kernel frames (do_group_exit .. system_call_fastpath, the hung task's report
    # below them cut) after dmon's first row (seed 123 on this tree: HEALTHY 'checked: gpu')
    dmon = _rows(DMON, 1, 9)
    kernel = _rows(ART / "kernel_log" / "parallelcluster1150_messages_nfs_trace_then_hung_task.log", 8, 10)
    rep, _ = _diagnose(tmp_path, ruleset, "\n".join(dmon[:3] + kernel + dmon[3:5]))
    assert rep.verdict != "healthy", rep.reason


def test_near_miss_benign_warnings_of_a_known_program_are_no_fault(ruleset, tmp_path):
    # dcgm-exporter's 'WARN[0000] Skipping line 59 (...): DCP metrics not enabled' (harvest 2102, NVIDIA/dcgm-exporter
    # #22, a healthy control: a K80 has no profiling metrics) after an nvidia-smi table's GPU row (harvest 168,
    # NVIDIA/gpu-operator#356): alone the lines are unrecognised; beside the table they keep it inconclusive, never faulty
    table = [ln for ln in _case("168", "console.txt").read_text().splitlines() if ln.strip()]
    at = next(i for i, ln in enumerate(table) if ln.startswith("|====="))
    text = "\n".join(table[at:at + 3]) + "\n\n" + _lines(_case("2102", "dcgm-exporter.log"), 8, 9)
    rep, _ = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict == "inconclusive" and not rep.findings, rep.reason


def test_near_miss_a_deepspeed_warning_after_a_table_stays_healthy(ruleset, tmp_path):
    # harvest 604 (EleutherAI/gpt-neox#990, a healthy control): DeepSpeed's '[WARNING] ... NCCL backend in DeepSpeed
    # not yet implemented' after an nvidia-smi table's GPU row: a reader reads it, nothing is left unread
    table = [ln for ln in _case("168", "console.txt").read_text().splitlines() if ln.strip()]
    at = next(i for i, ln in enumerate(table) if ln.startswith("|====="))
    app = _case("604", "app.txt").read_text()
    [warn] = [ln for ln in app.splitlines() if "NCCL backend in DeepSpeed not yet implemented" in ln][:1]
    rep, checked = _diagnose(tmp_path, ruleset, "\n".join(table[at:at + 3]) + "\n\n" + warn)
    assert rep.verdict == "healthy" and "gpu" in checked, rep.reason


@pytest.mark.parametrize("name", ["allreduce_healthy_g2.txt", "allgather_healthy_g2.txt"])
def test_near_miss_a_whole_nccl_tests_table_reads_as_before(ruleset, tmp_path, name):
    # its own banner and footer lines ('# Collective test concluded: ...') are no other program's
    rep, _ = _diagnose(tmp_path, ruleset, (ART / "nccl_tests" / name).read_text().strip())
    assert not [h for h in rep.coverage.limits if h.limit == "unread_run"], rep.reason


def test_runs_past_the_reparse_budget_are_a_limit_not_dropped(ruleset, tmp_path, monkeypatch):
    # the perftest window above with no re-parse left (a file too large for engine/foreign_runs.py's REPARSE_CHARS):
    # its run is not judged, and says so as an unread_run limit (never dropped: the file read HEALTHY before A9)
    from stethoscope.engine import foreign_runs

    monkeypatch.setattr(foreign_runs, "MAX_TRIES", 0)
    csv = _rows(QUERY_CSV, 1, 7)
    text = "\n".join(csv[:5] + _rows(ART / "perftest" / "perftest54_rdma_cm_rejected.txt", 7, 9) + csv[5:])
    rep, _ = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict == "inconclusive", rep.reason
    [hit] = rep.coverage.limits
    assert hit.limit == "unread_run" and "were not checked" in hit.detail and 6 <= hit.line <= 8, hit


def test_gsp_rpc_history_rows_cut_from_their_dump_before_nccl_lines(ruleset, tmp_path):
    # NVIDIA/open-gpu-kernel-modules#1118's RPC history rows -1..-5 (the dump's head and its awaited RPC 0 cut), a blank
    # line, then NVIDIA/nccl#1412's Channel and Init COMPLETE lines (fixtures' mpirun tag) (session 27's fragment audit,
    # seed 135: HEALTHY 'checked: nccl, network'): the driver prints that history only on a GSP RPC failure, so the rows
    # are a report cut short (a cut_short limit), never nothing
    rows = _rows(ART / "kernel_log" / "ogkm1118_talos_gsp_rpc_history_rows.log", 2, 6)
    nccl = _rows(ART / "nccl_log" / "mpirun_tagged_ib.log", 8, 10)
    rep, _ = _diagnose(tmp_path, ruleset, "\n".join(rows + [""] + nccl))
    assert rep.verdict == "inconclusive", rep.reason
    assert [h.limit for h in rep.coverage.limits] == ["cut_short"] and rep.coverage.limits[0].line == 1


def test_near_miss_the_rpc_history_with_the_rpc_it_awaited_is_the_timeout(ruleset, tmp_path):
    # the same rows with entry 0, still awaited ('y'): the GSP RPC timeout itself, as before
    rows = _rows(ART / "kernel_log" / "ogkm1118_talos_gsp_rpc_history_rows.log", 1, 6)
    rep, _ = _diagnose(tmp_path, ruleset, "\n".join(rows))
    assert rep.verdict == "faulty" and rep.findings[0].cause == "gsp_firmware_error", rep.reason
    assert not rep.coverage.limits


H200 = ROOT / "fixtures" / "bundles" / "h200-healthy" / "bundle" / "vm"


def test_bare_python_exception_line_after_an_nccl_tests_table(ruleset, tmp_path):
    # wild sweep A2: the h200 bundle's healthy all_reduce_perf output, then Python's bare Exception line of harvest
    # 2504 (THUDM/slime#1326, no "Traceback" header above it): 'Exception' is no XError/XException word, so the line
    # went unseen and the paste read HEALTHY 'checked: nccl'
    line = _lines(_case("2504", "app.txt"), 4, 4)
    assert line == "Exception: Server process terminated unexpectedly."
    rep, _ = _diagnose(tmp_path, ruleset, (H200 / "allreduce.txt").read_text().rstrip("\n") + "\n" + line)
    assert rep.verdict == "faulty", rep.reason
    assert any(f.rule == "unexplained_error" and "Server process terminated" in f.summary for f in rep.findings)


def test_dpkg_errors_list_after_an_nvidia_smi_q_capture(ruleset, tmp_path):
    # fragment_audit_s27's dpkg window: harvest 1904's last two lines (Mellanox/nv_peer_memory#80, the list item without
    # dpkg's leading space) after the h200 bundle's healthy nvidia-smi -q read HEALTHY ('Errors' is no error word)
    tail = _lines(_case("1904", "app.txt"), 27, 28)
    assert tail == "Errors were encountered while processing:\nnvidia-peer-memory-dkms"
    rep, _ = _diagnose(tmp_path, ruleset, (H200 / "smi.txt").read_text().rstrip("\n") + "\n\n" + tail)
    assert rep.verdict == "faulty", rep.reason
    assert any("nvidia-peer-memory-dkms" in f.summary for f in rep.findings)


@pytest.mark.parametrize("sep", ["\n", "\n\n\n"], ids=["right_after", "after_blank_lines"])
def test_bare_python_exception_line_after_an_nvidia_smi_q_capture(ruleset, tmp_path, sep):
    # wild sweep A2 left it HEALTHY: harvest 2504's bare Exception line after the h200 bundle's healthy nvidia-smi -q.
    # nvidia_smi_q counted its block's span (blank lines too) as read, so parse_one saw no unread line and
    # engine/foreign_runs.py never looked; with the blank lines counted out, the run around the line's error word took
    # in the block's last rows (no fact stands on them) and was rejected whole: the block is now read whole
    # (ParseResult.spans)
    line = _lines(_case("2504", "app.txt"), 4, 4)
    rep, _ = _diagnose(tmp_path, ruleset, (H200 / "smi.txt").read_text().rstrip("\n") + sep + line)
    assert rep.verdict == "faulty", rep.reason
    assert any(f.rule == "unexplained_error" and "Server process terminated" in f.summary for f in rep.findings)


@pytest.mark.parametrize("where", ["after", "before", "inside"])
def test_bare_python_exception_line_beside_an_nvidia_smi_q_xml_capture(ruleset, tmp_path, where):
    # the same line beside the h200 bundle's -q -x: a document's reader reads the members it knows, so foreign_runs
    # searched no document; nvidia_smi_xml now says which lines its document spans (ParseResult.spans), and a line
    # outside them is searched (HEALTHY before, either side of the document)
    line = _lines(_case("2504", "app.txt"), 4, 4)
    xml = (H200 / "smi.xml").read_text().rstrip("\n")
    rows = xml.split("\n")
    text = {"after": xml + "\n" + line, "before": line + "\n" + xml,
            # inside the document, between two elements (a stderr line interleaved by '2>&1'): expat passes it over
            "inside": "\n".join(rows[:len(rows) // 2] + [line] + rows[len(rows) // 2:])}[where]
    rep, _ = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict == "faulty", rep.reason
    assert any(f.rule == "unexplained_error" and "Server process terminated" in f.summary for f in rep.findings)


def test_near_miss_the_nvidia_smi_q_capture_alone_stays_healthy(ruleset, tmp_path):
    rep, checked = _diagnose(tmp_path, ruleset, (H200 / "smi.txt").read_text().rstrip("\n"))
    assert rep.verdict == "healthy", rep.reason
    assert {"gpu", "gpu_memory", "power_thermal"} <= checked


def test_bare_python_exception_line_inside_a_dcgm_exporter_scrape(ruleset, tmp_path):
    # the same line among a saved /metrics scrape's lines (dcgm-exporter#326's two gauges), after a '# HELP' line that
    # names an error ('Value of the last XID error encountered.'): the stretch around that first error word took the
    # stray line in and was rejected whole (its '# HELP' / '# TYPE' lines are the reader's), so the line went unseen
    # (HEALTHY 'checked: gpu'); a further error line of a rejected stretch is now tried alone
    scrape = (ART / "dcgm_exporter_scrape" / "dcgm_exporter326_xid_fb.txt").read_text().split("\n")
    line = _lines(_case("2504", "app.txt"), 4, 4)
    rep, _ = _diagnose(tmp_path, ruleset, "\n".join(scrape[:2] + [line] + scrape[2:]).rstrip("\n"))
    assert rep.verdict == "faulty", rep.reason
    assert any(f.rule == "unexplained_error" and "Server process terminated" in f.summary for f in rep.findings)
    (tmp_path / "alone").mkdir()
    alone, _ = _diagnose(tmp_path / "alone", ruleset, "\n".join(scrape).rstrip("\n"))
    assert alone.verdict == "healthy", alone.reason  # the near miss: the scrape alone


def test_a_pcie_aer_line_inside_an_nccl_log_is_no_continuation_of_its_widest_row(ruleset, tmp_path):
    # a kernel driver's line about a PCI device without its stamp ('pcieport 0000:00:02.0: AER: ...', dev_printk's
    # "%s %s: "), pasted in the middle of an NCCL log: facts/lines.py took the log's two Trees lines of one length for a
    # terminal's wall and joined the line after them onto the second (no record start seen), so the AER line was read
    # as NCCL text and the paste read HEALTHY 'checked: nccl, network'
    rows = (ART / "nccl_log" / "allreduce_healthy_g2.nccl.log").read_text().split("\n")
    at = next(i for i, r in enumerate(rows) if " [1] NCCL INFO Trees " in r) + 1
    dmesg = ROOT / "fixtures" / "bundles" / "pcie-switch-hgx-a100" / "bundle" / "hgx-a" / "dmesg.log"
    aer = _lines(dmesg, 1, 1).split("] ", 1)[1]  # its stamp off, as a journal's --output=cat or a paste leaves it
    assert aer.startswith("pcieport 0000:00:02.0: AER: Multiple Uncorrected (Fatal) error received")
    rep, _ = _diagnose(tmp_path, ruleset, "\n".join(rows[:at] + [aer] + rows[at:]).rstrip("\n"))
    assert rep.verdict == "faulty", rep.reason
    assert any(f.cause == "pcie_aer_fatal" for f in rep.findings)


NVLINK_S = ART / "nvidia_smi_nvlink" / "nccl_tests228_a100_sxm4_nvlink_s_elided.txt"  # NVIDIA/nccl-tests#228: nvlink -s


def test_bare_python_exception_line_between_an_nvlink_header_and_its_links(ruleset, tmp_path):
    # harvest 2504's bare 'Exception: Server process terminated unexpectedly.' between nvidia-smi nvlink -s's 'GPU 1:
    # ...' header and its first 'Link 0:' row (fragment_audit --plant, at half of its lines): nvidia_smi_list took the
    # header for an nvidia-smi -L line (no indented row right under it), and without the stray line it was nvlink's
    # header again, so engine/foreign_runs.py saw the readers read less without the line and kept it as theirs: HEALTHY
    rows = NVLINK_S.read_text().rstrip("\n").split("\n")
    at = rows.index(next(r for r in rows if r.startswith("GPU 1: "))) + 1
    line = _lines(_case("2504", "app.txt"), 4, 4)
    assert line == "Exception: Server process terminated unexpectedly."
    rep, _ = _diagnose(tmp_path, ruleset, "\n".join(rows[:at] + [line] + rows[at:]))
    assert rep.verdict == "faulty", rep.reason
    assert any(f.cause == "unexplained_error" for f in rep.findings)
    (tmp_path / "alone").mkdir()
    alone, checked = _diagnose(tmp_path / "alone", ruleset, "\n".join(rows))
    # the near miss: the nvlink -s alone checks GPUs 0-1's links, and its '......' after GPU 2's Link 0 is a capture cut
    # short (round rO2): INCONCLUSIVE, never an unexplained error
    assert alone.verdict == "inconclusive" and checked == {"nvlink"} and not alone.findings, alone.reason
    assert [h.limit for h in alone.coverage.limits] == ["cut_short"]


# session 29, B4 (bench/fragment_audit_s29.md): rows of a tool that say a thing failed or is down in no error word
# (nvidia-smi's ERR!, dcgmi diag's Fail cell, ibstatus's '1: DOWN'), each planted in a healthy NCCL log, were read by
# no one there: the log's readers vouched for the file (HEALTHY 'checked: nccl, network')
HEALTHY_NCCL = ART / "nccl_log" / "allreduce_healthy_g2.nccl.log"
TOOL_ROWS = {
    "nvidia-smi ERR!": (ART / "nvidia_smi_table" / "ogkm446_r525_a40_gpu4_err.txt", 25),
    "dcgmi diag Fail": (ART / "dcgmi_diag" / "go_dcgm52_memory_fail_busy.txt", 3),
    "ibstatus DOWN": (ART / "ibstatus" / "hdr_active_and_polling.txt", 14),
}


@pytest.mark.parametrize("row", sorted(TOOL_ROWS))
@pytest.mark.parametrize("where", ["append", "after a blank line", "prepend", "half"])
def test_a_tools_failure_row_planted_in_a_healthy_nccl_log(ruleset, tmp_path, row, where):
    # (after a blank line: the failure form's leading blanks ran over the line end, so the match began on the blank line
    # and the line it named was empty)
    path, n = TOOL_ROWS[row]
    line = _lines(path, n, n)
    rows = HEALTHY_NCCL.read_text().rstrip("\n").split("\n")
    at = {"append": len(rows), "after a blank line": len(rows), "prepend": 0, "half": len(rows) // 2}[where]
    rep, _ = _diagnose(tmp_path, ruleset, "\n".join(rows[:at] + [""] * (where == "after a blank line") + [line] + rows[at:]))
    assert rep.verdict != "healthy", rep.reason
    if row == "ibstatus DOWN":  # (session 30, C3) ibstatus's own state line, its block's header cut: no port to name
        assert any(h.limit == "cut_short" and "1: DOWN" in h.detail for h in rep.coverage.limits), rep.reason
        return
    assert any(f.cause == "unexplained_error" and line.strip()[:20] in f.summary for f in rep.findings), rep.findings


@pytest.mark.parametrize("path, n", [(ART / "ibstatus" / "hdr_active_and_polling.txt", 5),  # state: 4: ACTIVE
                                     (ART / "dcgmi_diag" / "go_dcgm52_memory_fail_busy.txt", 2),  # Pass - GPU: 1
                                     (ART / "nvidia_smi_table" / "ogkm446_r525_a40_gpu4_err.txt", 21)])  # GPU 3's row
def test_near_miss_the_same_tools_passing_row_in_a_healthy_nccl_log_stays_healthy(ruleset, tmp_path, path, n):
    rows = HEALTHY_NCCL.read_text().rstrip("\n").split("\n")
    rep, checked = _diagnose(tmp_path, ruleset, "\n".join(rows + [_lines(path, n, n)]))
    assert rep.verdict == "healthy" and "nccl" in checked, rep.reason


# session 29, B4: a program's failure line pasted at half of an NCCL log, right under its Trees lines (two rows of one
# width, taken for a terminal's wall), was joined with the row above as the rest of a cut line and read as NCCL text:
# Go's 'panic: ', Slurm's '<program>: error: ', logrus's 'time="..." level=fatal', NCCL <= 2.3's 'file:line WARN' and
# a table's row (kubectl get pods) now start records of their own (facts/lines.py _RECORD_START)
HALF_PLANTS = {
    "go panic": (ART / "k8s_device_plugin" / "gpu_operator286_mig_single_strategy_panic_v0.log", 8, "unexplained_error"),
    "slurmstepd error": (ART / "slurm_log" / "knet30_step_oom_killed.out", 1, "slurm_oom_kill"),
    "logrus fatal": (ART / "dcgm_exporter_log" / "fatal_logrus_dcgmexporter34.log", 4, "dcgm_exporter_stopped"),
    "nccl 2.3 warn": (ART / "nccl_log" / "socket_creation_failed_old.log", 1, "nccl_socket_creation_failed"),
    "kubectl row": (ART / "dcgm_exporter_log" / "gmt94_flag_env_value_not_int_pods_mixed.txt", 6,
                    "gpu_monitoring_pod_waiting"),
}


@pytest.mark.parametrize("name", sorted(HALF_PLANTS))
def test_a_failure_line_under_an_nccl_logs_trees_lines_is_no_continuation(ruleset, tmp_path, name):
    path, n, rule = HALF_PLANTS[name]
    rows = HEALTHY_NCCL.read_text().rstrip("\n").split("\n")
    at = len(rows) // 2
    assert " NCCL INFO Trees " in rows[at - 1]  # the wall row the line was joined with
    rep, _ = _diagnose(tmp_path, ruleset, "\n".join(rows[:at] + [_lines(path, n, n)] + rows[at:]))
    assert rep.verdict == "faulty", rep.reason
    assert any(f.rule == rule for f in rep.findings), [f.rule for f in rep.findings]


def test_near_miss_the_healthy_nccl_log_alone_stays_healthy(ruleset, tmp_path):
    rep, checked = _diagnose(tmp_path, ruleset, HEALTHY_NCCL.read_text().rstrip("\n"))
    # one VM's two GPUs, every channel P2P/direct pointer: NCCL checked, not the network (round rO2)
    assert rep.verdict == "healthy" and checked == {"nccl"}, rep.reason


def test_a_dcgmi_diag_fail_row_under_an_nvidia_smi_table_is_no_row_of_the_table(ruleset, tmp_path):
    # dcgmi diag's boxed 'Fail - GPU: 0' row opens with the table's '|': engine/foreign_runs.py took it for a row of
    # the table's shape and the paste read HEALTHY 'checked: driver, gpu'; a row of that shape saying a thing failed
    # in a form no signature of the table's matches is another tool's
    table = (ART / "nvidia_smi_table" / "toolkit394_r550_rtx3060.txt").read_text().rstrip("\n")
    line = _lines(ART / "dcgmi_diag" / "go_dcgm52_memory_fail_busy.txt", 3, 3)
    rep, _ = _diagnose(tmp_path, ruleset, table + "\n" + line)
    assert rep.verdict == "faulty", rep.reason
    assert any(f.cause == "unexplained_error" and "Fail - GPU: 0" in f.summary for f in rep.findings)
    (tmp_path / "alone").mkdir()
    alone, checked = _diagnose(tmp_path / "alone", ruleset, table)
    assert alone.verdict == "healthy" and "gpu" in checked, alone.reason  # the near miss: the table alone


def test_compose_labelled_nccl_tests_results_below_a_healthy_table(ruleset, tmp_path):
    # round rF5's probe: harvest 2501's nccl-tests results (5.45 GB/s busbw, a low figure the case is about) as
    # `docker compose logs` prints them ("trainer-1  | "), pasted under a healthy nvidia-smi table: the labelled
    # run went unread (the label is taken off only when every line has it) and the table read HEALTHY
    table = ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi.txt"
    run = [ln for ln in _case("2501", "nccl-tests-with-mpirun.txt").read_text().splitlines() if ln.strip()]
    text = table.read_text().rstrip("\n") + "\n\n" + "\n".join("trainer-1  | " + ln for ln in run)
    rep, _ = _diagnose(tmp_path, ruleset, text)
    assert rep.verdict != "healthy" and "nccl_tests_busbw_unjudged" in [f.rule for f in rep.findings], rep.reason


def test_another_programs_line_indented_under_a_healthy_smi_q_block(ruleset, tmp_path):
    # round rG4's probe: dcgm-exporter's fatal line (harvest 1002, NVIDIA/dcgm-exporter#80) four blanks deep under an
    # nvidia-smi -q ECC block: the block's reader passed it over as one of its rows (nvidia-smi prints none that is
    # neither "<key> : <value>" nor a section's name) and the -q read HEALTHY; the line is now left to the fallback readers
    smi_q = (ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q-ECC.txt").read_text().rstrip("\n")
    [line] = [ln for ln in _case("1002", "dcgm-exporter.log").read_text().splitlines() if "level=fatal" in ln][:1]
    rep, _ = _diagnose(tmp_path, ruleset, smi_q + "\n\n    " + line.strip())
    assert rep.verdict == "faulty" and any("API version mismatch" in f.summary for f in rep.findings), rep.reason
    (tmp_path / "alone").mkdir()
    alone, checked = _diagnose(tmp_path / "alone", ruleset, smi_q)
    assert alone.verdict == "healthy" and "gpu_memory" in checked, alone.reason  # the near miss: the block alone


@pytest.mark.parametrize("base", [
    ROOT / "fixtures" / "observations" / "h200-x2" / "nccl-tests" / "allreduce_healthy_g2.txt",  # ends in "rc=0"
    ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q-ECC.txt",
])
def test_a_reporters_paragraph_of_faults_under_healthy_results(ruleset, tmp_path, base):
    # round rG4's probe: harvest 2701's paragraph (NVIDIA/open-gpu-kernel-modules#1370: "... stopped the faults ... a
    # reproduction that faults within 2–3 minutes") pasted under nccl-tests results or an -q block read HEALTHY: its
    # one line left unread named no error word (only a symptom's), and under nccl-tests' "rc=0" the two were no prose
    para = next(ln for ln in _case("2701", "other-quoted-in-text.txt").read_text().splitlines() if "stopped the faults" in ln)
    rep, _ = _diagnose(tmp_path, ruleset, base.read_text().rstrip("\n") + "\n\n" + para)
    assert rep.verdict == "inconclusive", rep.reason
    assert [f.rule for f in rep.findings] == ["reported_symptom_unjudged"] and "'faults'" in rep.findings[0].summary
    (tmp_path / "alone").mkdir()
    alone, _ = _diagnose(tmp_path / "alone", ruleset, base.read_text().rstrip("\n"))
    assert alone.verdict == "healthy", alone.reason  # the near miss: the results alone



def test_the_claim_words_gate_is_searched_in_ascii_stretches(ruleset, tmp_path):
    # engine/foreign_runs.py looks for CLAIM_WORDS in an ASCII stretch only where its RE2 gate (_CLAIM_ANY, the
    # look-behinds dropped) finds one: the paragraph above in ASCII ("2-3 minutes") is read as before, and the gate
    # matches every line CLAIM_WORDS matches (and the lines it refuses by a look-behind: "no faults")
    from stethoscope.engine.run_candidates import _CLAIM_ANY
    from stethoscope.facts.parsers.ticket_prose import CLAIM_WORDS
    para = next(ln for ln in _case("2701", "other-quoted-in-text.txt").read_text().splitlines() if "stopped the faults" in ln)
    para = para.replace("\u2013", "-").replace("\u2014", "-")
    assert para.isascii()
    base = ROOT / "fixtures" / "observations" / "h200-x2" / "nccl-tests" / "allreduce_healthy_g2.txt"
    rep, _ = _diagnose(tmp_path, ruleset, base.read_text().rstrip("\n") + "\n\n" + para)
    assert [f.rule for f in rep.findings] == ["reported_symptom_unjudged"] and rep.verdict == "inconclusive", rep.reason
    lines = [para, "Application HANGS at init", "the job hung", "DEADLOCKED ranks", "it is not working", "GPU isn't working",
             "it does not work", "the driver Crashed", "GPU faulted twice", "no faults seen", "zero faults", "page faults: 12",
             "# nThread 1 nGpus 8 minBytes 8 maxBytes 4294967296 step: 2(factor) warmup iters: 1", "default fault tolerance",
             "unhung", "worksheet"]
    for line in lines:
        assert CLAIM_WORDS.search(line) is None or _CLAIM_ANY.search(line) is not None, line
    assert _CLAIM_ANY.search(lines[-4]) is None and _CLAIM_ANY.search("no faults seen") is not None

def test_a_readers_own_header_in_a_split_run_is_no_remark(ruleset, tmp_path):
    # the fallback readers read a run's blocks one by one only for what holds a verdict back: ibnetdiscover's
    # "# Initiated from node ..." header, a block of its own, gave a reporter's 'remark' when they did (must not)
    rep, _ = _diagnose(tmp_path, ruleset, (ART / "ibnetdiscover" / "two_hosts_one_leaf.txt").read_text().rstrip("\n"))
    assert not [f for f in rep.findings if f.rule == "reported_symptom_unjudged"]


def test_a_launchers_label_on_lines_pasted_below_a_table_is_read_off(ruleset, tmp_path):
    # two of a ComputeDomain's lines (harvest 2805, NVIDIA/k8s-dra-driver-gpu) under pdsh's "host: " pasted below an
    # nvidia-smi table: the run no reader of the table reads was read with the label on, as a remark (INCONCLUSIVE),
    # where the bare lines read an unexplained error (bench/plant_prefix_probe.py, pdsh; session 38's leftover); the
    # evidence quotes the line as written. Must not: a labelled line of no failure below the table stays no error.
    [path] = CASES.glob("2805-*/*.txt")
    status = next(ln for ln in path.read_text().splitlines() if ln.strip() == "Status: NotReady")
    table = (ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi.txt").read_text().rstrip("\n")
    rep, _ = _diagnose(tmp_path, ruleset, table + "\n\ngpu-node07: numNodes: 2, nodes seen: 1\ngpu-node07: " + status)
    errors = [f for f in rep.findings if f.rule == "unexplained_error"]
    assert rep.verdict == "faulty" and errors and errors[0].evidence[0].text == "gpu-node07: " + status, rep.findings
    rep, _ = _diagnose(tmp_path / "ok", ruleset, table + "\n\ngpu-node07: numNodes: 2, nodes seen: 2\ngpu-node07:   Status: Ready")
    assert not [f for f in rep.findings if f.rule == "unexplained_error"]
    # lines no fallback reads bare (an nvidia-smi -q FABRIC block's, harvest 800) are still read with the label (a remark
    # that holds the verdict back), never dropped: a first version read only the bare lines and called this HEALTHY
    import yaml
    fabric = yaml.safe_load(next(CASES.glob("800-*/label.yaml")).read_text())["evidence"]
    assert "Insufficient Resources" in fabric[0]
    rep, _ = _diagnose(tmp_path / "fabric", ruleset, table + "\n\n" + "\n".join("gpu-node07: " + ln for ln in fabric))
    assert rep.verdict != "healthy", rep.reason


def test_one_hosts_two_labelled_lines_below_a_table_are_read_by_their_own_reader(ruleset, tmp_path):
    # a Slurm node's sinfo -R row and scontrol State line (harvest 703's other.txt, slinky) under pdsh's "gpu-node07: "
    # pasted as a block of their own below an nvidia-smi table: the Slurm reader's line patterns (anchored at the line's
    # start) read nothing of them and the fallback readers make nothing of Slurm's lines bare, so the paste read
    # INCONCLUSIVE where the bare lines read the drained node (bench/plant_prefix_probe.py, pdsh, round rN4; the run
    # under three labelled lines was never offered off). The same for an NVRM line and nvidia-smi's answer (harvest 504).
    table = (ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi.txt").read_text().rstrip("\n")
    slurm = _lines(_case("703", "other.txt"), 2, 2), _lines(_case("703", "other.txt"), 5, 5)
    rep, _ = _diagnose(tmp_path, ruleset, table + "\n\n" + "\n".join("gpu-node07: " + ln for ln in slurm))
    gres = [f for f in rep.findings if f.rule == "slurm_gres_count_below_configured"]
    assert rep.verdict == "faulty" and gres and gres[0].evidence[0].text == "gpu-node07: " + slurm[0], rep.findings
    nvrm = _lines(_case("504", "syslog.txt"), 2, 2), _lines(_case("504", "nvidia-smi.txt"), 2, 2)
    # the syslog line's host names the paste's node behind pdsh's label or compose's service as it does bare: the driver's
    # RmInitAdapter failure and nvidia-smi's "No devices were found" meet on one node (one finding, not two apart)
    for name, label in (("pdsh", "gpu-node07: "), ("compose", "trainer-1  | ")):
        rep, _ = _diagnose(tmp_path / name, ruleset, table + "\n\n" + "\n".join(label + ln for ln in nvrm))
        # (the driver's reading of that GPU speaks for the two: engine/findings.py _same_fault, round rY6)
        assert [(f.rule, sorted(f.rules)) for f in rep.findings] == [
            ("nvrm_driver_message", ["nvml_init_failed", "nvrm_driver_message"])], (name, rep.findings)
    # must not: the same two lines under two hosts' labels are not split apart (nor read bare): two lines are too few
    # to tell pdsh's hosts from a model's or a step's name before a colon; never HEALTHY either way
    rep, _ = _diagnose(tmp_path / "two", ruleset, table + "\n\ngpu-node07: " + slurm[0] + "\ngpu-node08: " + slurm[1])
    assert rep.verdict != "healthy" and not [f for f in rep.findings if f.rule == "slurm_gres_count_below_configured"]


# session 52, rI3: nvidia-smi's table with one ERR! cell (one query NVML failed) read HEALTHY: below
# gpu_unreadable_nvidia_smi's three fields nothing was said. CONSTRUCTED from open-gpu-kernel-modules#446's
# real table: GPU 4's rows rewritten to a plain A40 whose power draw alone reads ERR!
A40_TABLE = ART / "nvidia_smi_table" / "ogkm446_r525_a40_gpu4_err.txt"


def _one_err(cell_row: str) -> str:
    rows = A40_TABLE.read_text().splitlines()
    rows[24] = "|   4  NVIDIA A40          On   | 00000000:83:00.0 Off |                    0 |"
    rows[25] = cell_row
    rows[26] = "|                               |                      |                  N/A |"
    return "\n".join(rows)


def test_one_err_cell_in_the_summary_table_is_never_healthy(ruleset, tmp_path):
    rep, _ = _diagnose(tmp_path, ruleset, _one_err("|  0%   23C    P8    ERR! / 300W |      0MiB / 46068MiB |      0%      Default |"))
    assert rep.verdict != "healthy", rep.reason
    assert any("ERR! for power draw" in f.summary and "0000:83:00.0" in f.summary for f in rep.findings), rep.findings


def test_near_miss_the_same_table_without_err_stays_healthy(ruleset, tmp_path):
    rep, _ = _diagnose(tmp_path, ruleset, _one_err("|  0%   23C    P8    14W / 300W |      0MiB / 46068MiB |      0%      Default |"))
    assert rep.verdict == "healthy", rep.reason


# session 54 (the lead's mixed audit, seed 5402): a Python traceback's header and frames with NCCL lines pasted after them
# and no exception line anywhere read HEALTHY ('checked: nccl, network'): the frames' end was taken for the exception's
# line, an NCCL INFO line the NCCL reader owns. Real lines: autotrain-advanced#456's accelerate traceback (its header
# line without the progress bar before it, then two frames), then mpirun_tagged_ib.log's first three NCCL lines.
SIGKILL = ART / "subprocess_error" / "autotrain456_accelerate_sigkill.txt"
TAGGED = ART / "nccl_log" / "mpirun_tagged_ib.log"


def _traceback_then_nccl(tail: str = "") -> str:
    frames = SIGKILL.read_text().splitlines()[2:6]
    return "\n".join(["Traceback (most recent call last):", *frames, _lines(TAGGED, 1, 3)] + ([tail] if tail else []))


def test_traceback_frames_under_other_output_without_their_exception_are_never_healthy(ruleset, tmp_path):
    rep, _ = _diagnose(tmp_path, ruleset, _traceback_then_nccl())
    assert rep.verdict != "healthy", rep.reason
    assert any(lim.limit == "cut_short" and lim.line == 1 for lim in rep.coverage.limits), rep.coverage.limits


def test_near_miss_the_exception_line_below_the_other_output_is_read(ruleset, tmp_path):
    # the same, the exception printed after the NCCL lines (ranks' output interleaved): that line is the error
    rep, _ = _diagnose(tmp_path, ruleset, _traceback_then_nccl("RuntimeError: CUDA error: an illegal memory access was encountered"))
    assert rep.verdict == "faulty" and rep.findings[0].cause == "app_gpu_fault", rep.findings
    assert not any(lim.limit == "cut_short" and lim.line == 1 for lim in rep.coverage.limits), rep.coverage.limits

"""Verdict semantics (issue 10): healthy only on evidence, every error accounted for."""
import shutil
from pathlib import Path

import pytest

from stethoscope.engine import accounting
from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.engine.knowledge import load_coverage
from stethoscope.facts import knowledge
from stethoscope.facts.registry import load_fallbacks, load_parsers

ROOT = Path(__file__).resolve().parent.parent
ART = ROOT / "fixtures" / "artefacts"


def _bundle(tmp_path: Path, files: dict[str, str | Path]) -> Path:
    b = tmp_path / "bundle"
    for name, src in files.items():
        dst = b / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(src, Path):
            shutil.copy(src, dst)
        else:
            dst.write_text(src)
    return b


def test_every_parser_kind_says_what_it_checks():
    kinds = load_coverage()
    missing = sorted({p.KIND for p in load_parsers() + load_fallbacks()} - set(kinds))
    assert not missing, f"add these artefact kinds to knowledge/coverage.yaml: {missing}"


def test_only_top_output_is_inconclusive(ruleset, tmp_path):
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/top.txt": ART / "top" / "top_1_w512_dev_host.txt"}), ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "no artefact that checks" in rep.reason and "top" in rep.reason
    assert rep.checked == []


def test_unparseable_xml_is_inconclusive_with_the_file_and_line(ruleset, tmp_path):
    xml = (ART / "nvidia_smi_xml" / "nvidia-smi-q.xml").read_text()
    half = len(xml) // 2
    bad = xml[:half] + "<a></b>" + xml[half:]  # not well-formed
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/nvidia-smi-q.xml": bad}), ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "node1/nvidia-smi-q.xml:" in rep.reason and "could not be parsed" in rep.reason


def test_xml_cut_short_is_inconclusive_with_the_file_and_line(ruleset, tmp_path):
    xml = (ART / "nvidia_smi_xml" / "nvidia-smi-q.xml").read_text()
    cut = xml[: len(xml) // 2]  # a capture cut short: read up to the cut, never healthy
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/nvidia-smi-q.xml": cut}), ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "node1/nvidia-smi-q.xml:" in rep.reason and "incomplete" in rep.reason


def test_kernel_log_with_no_readable_line_is_inconclusive(ruleset, tmp_path):
    # the malformed line of fixtures/artefacts/kernel_log/malformed_xid.log on its own
    bad = (ART / "kernel_log" / "malformed_xid.log").read_text().splitlines()[1] + "\n"
    assert "notanumber" in bad
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/dmesg.log": bad}), ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "node1/dmesg.log" in rep.reason


def test_unparseable_line_beside_readable_ones_is_an_unexplained_error(ruleset, tmp_path):
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/dmesg.log": ART / "kernel_log" / "malformed_xid.log"}), ruleset, jobs=1)
    assert rep.verdict == "faulty"
    un = [f for f in rep.findings if f.cause == "unexplained_error"]
    assert any(ev.line == 2 for f in un for ev in f.evidence), [f.summary for f in rep.findings]


def test_error_line_in_an_unrecognised_file_is_never_healthy(ruleset, tmp_path):
    smi = ART / "nvidia_smi_q"
    healthy = next(p for p in sorted(smi.iterdir()) if p.name == "nvidia-smi-q.txt") if (smi / "nvidia-smi-q.txt").exists() else None
    files: dict[str, str | Path] = {
        # a real line from NVIDIA/nvidia-container-toolkit#394 (an error no parser may know)
        "node1/notes.txt": "docker: Error response from daemon: failed to create task for container: failed to create shim task\n",
    }
    if healthy:
        files["node1/nvidia-smi-q.txt"] = healthy
    rep = diagnose_bundle(_bundle(tmp_path, files), ruleset, jobs=1)
    assert rep.verdict == "faulty"
    assert any(f.cause == "unexplained_error" and f.severity == "warning" for f in rep.findings)


def test_unrecognised_file_without_errors_keeps_healthy_from_being_claimed(ruleset, tmp_path):
    # an unknown tool's line naming a GPU: no reader knows it, and it may hold what nobody read (a reporter's
    # sentence naming one is read as a remark: test_prose_that_names_a_gpu_term_holds_health_back)
    files = {"node1/cmd.txt": "gpu3 util=0 mem=0MiB state=P8\n",
             "node1/nvidia-smi-q.txt": ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q-ECC.txt"}
    rep = diagnose_bundle(_bundle(tmp_path, files), ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "not recognised" in rep.reason and "node1/cmd.txt" in rep.reason


def test_healthy_names_what_was_checked(ruleset):
    rep = diagnose_bundle(ROOT / "fixtures" / "bundles" / "h200-healthy" / "bundle", ruleset, jobs=1)
    assert rep.verdict == "healthy", [f.summary for f in rep.findings]
    comps = {c.component for c in rep.checked}
    assert {"gpu", "nccl"} <= comps
    # and the readings it rests on (round rO2): each component, its file and line, what was read and how many
    assert rep.reason.startswith("healthy on what was read: "), rep.reason
    assert all(f"{c} on " in rep.reason for c in comps), rep.reason
    assert "gpu on vm/smi.txt:9: 2 gpu_info, the first 'GPU 00000000:00:06.0'" in rep.reason, rep.reason


def test_a_healthy_reason_is_the_same_with_later_readings_counted_not_held(ruleset, tmp_path, monkeypatch):
    # issue 12 (round rP7): a bundle's files' readings past a component's first three held are counted, not held to the
    # report (engine/accounting.ReadingsHeld: ~29 MB of the parent at 1,024 nodes); the reason must read as it did when
    # every file held all its readings. Four copies of the healthy 2 x H200 host: node2-4 hold counts.
    src = ROOT / "fixtures" / "bundles" / "h200-healthy" / "bundle" / "vm"
    b = _bundle(tmp_path, {f"node{i}/{f.name}": f for i in range(1, 5) for f in sorted(src.iterdir())})
    rep = diagnose_bundle(b, ruleset, jobs=1)
    assert rep.verdict == "healthy", [f.summary for f in rep.findings]
    counted = {fc.path.split("/")[0] for fc in rep.coverage.files if any(type(v) is int for v in fc._readings.values())}
    assert {"node2", "node3", "node4"} <= counted, counted
    assert "more reading(s)" in rep.reason, rep.reason
    monkeypatch.setattr(accounting.ReadingsHeld, "keep", lambda self, fc, facts, errors, answered=None: None)
    every = diagnose_bundle(b, ruleset, jobs=1)
    assert not any(type(v) is int for fc in every.coverage.files for v in fc._readings.values())
    assert rep.reason == every.reason


def test_a_file_that_may_give_no_verdict_keeps_its_readings():
    # which files gave no verdict (accounting.no_verdict_files) is known only after the rules: a file whose every fact
    # findings could cite (as many facts as lines of it the diagnosis holds) keeps every reading, and they do not count
    # towards a component's first three, so the reason without such files names what it named when every file held
    # all its readings. Rows as the pipeline makes them: three hosts' nvidia-smi -q, each 4 readings of gpu; host a's
    # and b's gave 2 facts, both held (findings may cite both lines), host c's 40 of which 3 are held.
    from copy import deepcopy
    from stethoscope.engine.report import Coverage, FileCoverage
    from stethoscope.facts.model import Evidence, Fact

    def row(host, facts):
        fc = FileCoverage(path=f"{host}/nvidia-smi-q.txt", kind="nvidia_smi_q", node=host, facts=facts, skipped_lines=0,
                          read_by=["nvidia_smi_q"])
        fc._readings = {"gpu": {k: [i + 1, f"{host} {k} line", 8] for i, k in enumerate(
            ("gpu_info", "gpu_usage", "gpu_clocks", "gpu_power"))}}
        return fc
    cov = Coverage(files=[row(h, 2 if h in "ab" else 40) for h in "abcdef"])
    every = deepcopy(cov)
    for fc in every.files:
        fc._readings = deepcopy(fc._readings)
    held = accounting.ReadingsHeld()
    for fc in cov.files:
        facts = [Fact(kind="fact", id=f"{fc.path}:{i}", node=fc.node, evidence=Evidence(path=fc.path, line=i, text="x"))
                 for i in (1, 2, 3)]
        held.keep(fc, [facts], [])
    assert [type(v) for fc in cov.files for v in fc._readings.values()] == [dict, dict, dict, int, int, int]
    for left_out in (set(), {"a/nvidia-smi-q.txt"}, {"a/nvidia-smi-q.txt", "b/nvidia-smi-q.txt"}):
        got = accounting.healthy_reason(cov, left_out)
        assert got == accounting.healthy_reason(every, left_out), left_out
        assert "more reading(s)" in got
    assert got.startswith("healthy on what was read: gpu on c/nvidia-smi-q.txt:1: 8 gpu_info"), got
    assert got.endswith("; and 13 more reading(s)"), got


def test_network_ports_alone_do_not_make_a_node_healthy(ruleset, tmp_path):
    # l2fwd-nv#6: both ConnectX-6 Dx ports Active at 100 Gb/s while the PCIe slot capped throughput
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/ibstat.txt": ART / "ibstat" / "l2fwd_nv6_roce_100.txt"}), ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert "only network checked" in rep.reason and "node1/ibstat.txt" in rep.reason
    assert [c.component for c in rep.checked] == ["network"]


def test_rdma_traffic_counters_alone_check_nothing(ruleset, tmp_path):
    # a port's request counters with no retry, error or drop counter: no claim on the network (errors_listed false)
    traffic = ("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/rx_write_requests:108307999\n"
               "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/rx_read_requests:5\n")
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/hw_counters.txt": traffic}), ruleset, jobs=1)
    assert rep.verdict == "inconclusive" and not rep.checked, [f.summary for f in rep.findings]
    both = traffic + "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err:0\n"
    rep = diagnose_bundle(_bundle(tmp_path / "b", {"node1/hw_counters.txt": both}), ruleset, jobs=1)
    assert [c.component for c in rep.checked] == ["network"]


def test_prose_without_any_domain_term_or_error_does_not_hold_health_back(ruleset, tmp_path):
    files = {"node1/notes.txt": "Thanks for the quick reply.\nWe will try this on Monday and let you know.\n",
             "node1/nvidia-smi-q.txt": ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q-ECC.txt"}
    rep = diagnose_bundle(_bundle(tmp_path, files), ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])
    assert rep.coverage.unrecognised == []
    assert [u.path for u in rep.coverage.uninformative] == ["node1/notes.txt"]
    assert "no line reports an error" in rep.coverage.uninformative[0].reason


def test_prose_that_names_a_gpu_term_holds_health_back(ruleset, tmp_path):
    # read as the reporter's remark (ticket_prose), quoted: a claim nothing judges keeps the verdict inconclusive
    files = {"node1/notes.txt": "After the reboot the GPU was visible again.\n",
             "node1/nvidia-smi-q.txt": ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q-ECC.txt"}
    rep = diagnose_bundle(_bundle(tmp_path, files), ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert rep.coverage.unrecognised == [] and rep.coverage.uninformative == []
    assert "After the reboot the GPU was visible again." in rep.reason


def test_domain_words_only_in_a_command_typed_do_not_hold_health_back(ruleset, tmp_path):
    # harvest 2206 (NVIDIA/nccl#330): the pipeline names an nccl-tests log; all that came back is a bare number
    smi = ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q-ECC.txt"
    files = {"node1/avg.txt": ART / "ticket_prose" / "nccl330_shell_average_not_prose.txt", "node1/nvidia-smi-q.txt": smi}
    rep = diagnose_bundle(_bundle(tmp_path, files), ruleset, jobs=1)
    assert rep.coverage.unrecognised == []
    assert [u.path for u in rep.coverage.uninformative] == ["node1/avg.txt"]
    assert "typed at a shell prompt" in rep.coverage.uninformative[0].reason
    # the output names the GPU: it may hold what nobody read
    files = {"node1/out.txt": "root@node1:~# ./probe --all\nGPU 3: lost after 12 h\n", "node1/nvidia-smi-q.txt": smi}
    rep = diagnose_bundle(_bundle(tmp_path / "b", files), ruleset, jobs=1)
    assert rep.coverage.unrecognised == ["node1/out.txt"] and rep.verdict == "inconclusive"


def test_a_feature_request_title_is_no_claim_about_the_system(ruleset, tmp_path):
    """flightlessmango/MangoHud#636: an issue titled as a feature request beside an idle GPU's nvidia-smi -q (the Idle
    throttle reason Active): what a tool should do, no complaint; a request that names a failure stays a claim."""
    smi = ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q-ECC.txt"
    title = "feature request: display what is limiting GPU performance like afterburner/RiviaTuner does\n"
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/title.txt": title, "node1/nvidia-smi-q.txt": smi}), ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])
    assert [u.path for u in rep.coverage.uninformative] == ["node1/title.txt"]
    assert "feature request" in rep.coverage.uninformative[0].reason
    failing = "feature request: display why the GPU has fallen off the bus\n"
    rep = diagnose_bundle(_bundle(tmp_path / "b", {"node1/title.txt": failing, "node1/nvidia-smi-q.txt": smi}), ruleset, jobs=1)
    assert rep.verdict != "healthy" and rep.coverage.uninformative == []


def test_prose_explaining_an_error_class_is_uninformative_and_holds_no_health(ruleset, tmp_path):
    """harvest 2705: a paragraph telling what an Xid may mean names GPU terms but reports nothing of this
    system: the coverage says why it was passed over (not 'unrecognised'); with nothing else read the
    verdict stays inconclusive. An error line under the same paragraph keeps the file unrecognised."""
    para = ("An XID is an error report emitted by the NVIDIA driver. It indicates that some GPU-related fault occurred, "
            "but the XID alone does not necessarily identify the root cause or imply that the physical GPU has failed. "
            "The cause may be \n- an application error, \n- driver or firmware problem, \n- GPU memory or ECC errors\n"
            "- PCIe, NVLink, or hardware failures\n")
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/notes.txt": para}), ruleset, jobs=1)
    assert rep.coverage.unrecognised == []
    assert [u.path for u in rep.coverage.uninformative] == ["node1/notes.txt"]
    assert "explaining what an error class may mean" in rep.coverage.uninformative[0].reason
    assert rep.verdict != "healthy"
    # a sentence of this system's state after it: it may hold what nobody read
    rep = diagnose_bundle(_bundle(tmp_path / "b", {"node1/notes.txt": para + "\nGPU 3 on node7 is lost after 12 h\n"}),
                          ruleset, jobs=1)
    assert rep.coverage.uninformative == [] and rep.verdict != "healthy"


def test_a_diagnostic_that_gave_no_verdict_is_no_evidence_of_health(tmp_path, ruleset):
    """harvest 169 (DCGM#70): dcgmi diag refused to run on a MIG-partitioned GPU; its only line
    is the refusal (cause diag_test_not_comparable, knowledge/coverage.yaml no_verdict_causes):
    inconclusive, naming the file, and the file is not listed as having checked the GPU."""
    import glob
    import shutil

    from stethoscope.engine.pipeline import diagnose_bundle

    case = Path(glob.glob(str(Path(__file__).resolve().parent.parent / "fixtures/harvest/cases/169-*"))[0])
    (tmp_path / "b").mkdir()
    shutil.copy(case / "dcgmi.txt", tmp_path / "b" / "dcgmi.txt")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "gave no verdict" in rep.reason and "dcgmi.txt" in rep.reason
    assert all("dcgmi.txt" not in c.files for c in rep.checked)
    # the same refusal beside a file that did check the GPU: that file decides
    shutil.copy(Path(__file__).resolve().parent.parent / "fixtures/bundles/h200-healthy/bundle/vm/smi.txt", tmp_path / "b" / "smi.txt")
    rep = diagnose_bundle(tmp_path / "b", ruleset, jobs=1)
    assert "gave no verdict" in (rep.reason or "")  # still said: the diagnostic did not run


# --- what a file checked is what it showed (knowledge/coverage.yaml `checks`) -------------------
# Each file of the first group was listed as having checked every component its kind can check
# (several said HEALTHY so), whatever it showed of them. (file, verdict or None, checked)
SHOWN = [
    # microsoft/VirtualClient's 'dcgmi diag -r 3 -j' (DCGM 2.x): no NVLink / nvbandwidth test ran
    ("dcgmi_diag/virtualclient_r3_pass_dcgm2.json", "healthy", ["driver", "gpu", "gpu_memory", "pcie", "power_thermal"]),
    # NVIDIA/autopilot#68's table: the Deployment (software) checks alone, which load libraries and
    # read the denylist: no test of the GPU, its memory, PCIe or NVLink ran; and the excerpt stops at its third
    # Deployment row, no border after it (the section's other tests not shown): it checks nothing (session 24)
    ("dcgmi_diag/autopilot68_dcgm335_metadata_excerpt.txt", None, []),
    # 'nvidia-smi -q -d TEMPERATURE': no ECC, remapped-row, PCIe or fabric section, and no product named (the GPU's
    # header alone is no check of the GPU: dev corpus 035's 'GPU 00000000:01:00.0' pasted alone read HEALTHY)
    # and its Temperature readings check nothing either: no rule judges one reading against its limits (session 24: the
    # same file with 'GPU Current Temp : 97 C' past its T.Limit read HEALTHY, 'checked: power_thermal')
    ("nvidia_smi_q/nvidia-smi-q-TEMPERATURE.txt", "inconclusive", []),
    # an ibstat that found no HCA shows no port
    ("ibstat/empty_session_no_hca.txt", "inconclusive", []),
    # open-mpi/ompi#6184's 'ibv_devinfo -v' cut before its port block: an HCA without a port state (round rR4)
    ("ibv_devinfo/ompi6184_v_capabilities_no_ports.txt", "inconclusive", []),
    # a dmesg of PCIe AER lines alone: nothing of the NVIDIA driver, so its silence about Xids says nothing
    ("kernel_log/dmesg_aer_correctable_no_details.log", None, ["pcie"]),
    # NVIDIA/dcgm-exporter#326's scrape: the Xid and framebuffer-free gauges alone
    ("dcgm_exporter_scrape/dcgm_exporter326_xid_fb.txt", None, ["gpu"]),
    # the probe's copy bandwidths: judged against a baseline, not alone
    ("steth_probe/device_h200_copy_run1.txt", "inconclusive", []),
    # harvest 1203: GPUd's one state, the fabric manager's (NVLink), listed as a check of the GPU and its memory too
    ("../harvest/cases/1203-healthy-gpud-gb200-fabric-manager-inactive-fabric-state-completed/gpud.txt", "healthy", ["nvlink"]),
    # what shows it checks it: a whole nvidia-smi -q, a dmesg with the driver's lines, the probe's burn
    ("nvidia_smi_q/nvidia-smi-q.txt", None, ["gpu", "gpu_memory", "nvlink", "pcie", "power_thermal"]),
    ("ibv_devinfo/nccl426_roce_bond.txt", "inconclusive", ["network"]),
    ("kernel_log/dmesg-nvrm.log", None, ["driver", "gpu", "gpu_memory", "nvlink", "pcie"]),
    ("steth_probe/device_h200_burn_run1.txt", "healthy", ["gpu", "gpu_memory"]),
]


@pytest.mark.parametrize("name, verdict, checked", SHOWN, ids=[Path(s[0]).name for s in SHOWN])
def test_a_file_checks_what_it_showed(ruleset, tmp_path, name, verdict, checked):
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/" + Path(name).name: ART / name}), ruleset, jobs=1)
    assert [c.component for c in rep.checked] == checked, rep.reason
    assert verdict in (None, rep.verdict), [f.summary for f in rep.findings]


def test_a_checks_field_is_a_field_of_its_fact():
    from stethoscope.facts.model import Fact
    load_parsers()  # every fact class imported

    def classes(c):
        for s in c.__subclasses__():
            yield s
            yield from classes(s)
    by_kind = {c.model_fields["kind"].default: c for c in classes(Fact) if "kind" in c.model_fields}
    for name, cov in load_coverage().items():
        for kind, (_comps, field, unless) in cov.checks.items():
            fields = by_kind[kind].model_fields
            assert (not field or field in fields) and set(unless) <= set(fields), (name, kind)


def test_unless_reads_only_kinds_whose_facts_are_built():
    # a summarised kind's healthy readings are counted unbuilt (knowledge/fact_routing.yaml): no field of theirs to
    # read, but of those its keep_where keeps built: each value an unless names must be one keep_where keeps alone
    routing = knowledge.load("fact_routing.yaml")
    kept = {kind: [want] if isinstance(want, dict) else list(want) for kind, want in routing.keep_where.items()}
    assert not [(name, kind, field, v) for name, cov in load_coverage().items()
                for kind, (_c, _f, unless) in cov.checks.items() if kind in routing.summarise
                for field, values in unless.items() for v in values if {field: v} not in kept.get(kind, [])]

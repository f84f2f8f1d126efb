"""Verdict semantics (issue 10): healthy only on evidence, every error accounted for."""
import shutil
from pathlib import Path

import pytest

from stethoscope.engine.pipeline import diagnose_bundle
from stethoscope.engine.knowledge import load_coverage
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
    cut = xml[: len(xml) // 2]  # a capture cut short: not well-formed
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/nvidia-smi-q.xml": cut}), ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "node1/nvidia-smi-q.xml:" in rep.reason and "could not be parsed" in rep.reason


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
    # a reporter's note naming a GPU: no reader knows it, and it may hold what nobody read
    files = {"node1/cmd.txt": "Our dashboard shows GPU 3 at 0% utilisation since Tuesday.\n",
             "node1/nvidia-smi-q.txt": ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q-ECC.txt"}
    rep = diagnose_bundle(_bundle(tmp_path, files), ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert "not recognised" in rep.reason and "node1/cmd.txt" in rep.reason


def test_healthy_names_what_was_checked(ruleset):
    rep = diagnose_bundle(ROOT / "fixtures" / "bundles" / "h200-healthy" / "bundle", ruleset, jobs=1)
    assert rep.verdict == "healthy", [f.summary for f in rep.findings]
    comps = {c.component for c in rep.checked}
    assert {"gpu", "nccl"} <= comps
    assert rep.reason is None


def test_network_ports_alone_do_not_make_a_node_healthy(ruleset, tmp_path):
    # l2fwd-nv#6: both ConnectX-6 Dx ports Active at 100 Gb/s while the PCIe slot capped throughput
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/ibstat.txt": ART / "ibstat" / "l2fwd_nv6_roce_100.txt"}), ruleset, jobs=1)
    assert rep.verdict == "inconclusive", [f.summary for f in rep.findings]
    assert "only network checked" in rep.reason and "node1/ibstat.txt" in rep.reason
    assert [c.component for c in rep.checked] == ["network"]


def test_prose_without_any_domain_term_or_error_does_not_hold_health_back(ruleset, tmp_path):
    files = {"node1/notes.txt": "Thanks for the quick reply.\nWe will try this on Monday and let you know.\n",
             "node1/nvidia-smi-q.txt": ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q-ECC.txt"}
    rep = diagnose_bundle(_bundle(tmp_path, files), ruleset, jobs=1)
    assert rep.verdict == "healthy", (rep.reason, [f.summary for f in rep.findings])
    assert rep.coverage.unrecognised == []
    assert [u.path for u in rep.coverage.uninformative] == ["node1/notes.txt"]
    assert "no line reports an error" in rep.coverage.uninformative[0].reason


def test_prose_that_names_a_gpu_term_stays_unrecognised(ruleset, tmp_path):
    files = {"node1/notes.txt": "After the reboot the GPU was visible again.\n",
             "node1/nvidia-smi-q.txt": ROOT / "fixtures" / "observations" / "h200-x2" / "nvidia-smi" / "nvidia-smi-q-ECC.txt"}
    rep = diagnose_bundle(_bundle(tmp_path, files), ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert rep.coverage.unrecognised == ["node1/notes.txt"] and rep.coverage.uninformative == []


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
# Each of these said HEALTHY with every component its kind can check listed as checked, whatever
# the file showed of it.

def _checked(rep) -> list[str]:
    return [c.component for c in rep.checked]


def test_dcgmi_diag_checks_only_what_its_tests_that_ran_check(ruleset, tmp_path):
    # microsoft/VirtualClient's 'dcgmi diag -r 3 -j' (DCGM 2.x): no NVLink / nvbandwidth test ran,
    # yet dcgmi_diag's covers listed nvlink as checked
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/dcgmi-diag.json": ART / "dcgmi_diag" / "virtualclient_r3_pass_dcgm2.json"}),
                          ruleset, jobs=1)
    assert rep.verdict == "healthy", [f.summary for f in rep.findings]
    assert _checked(rep) == ["driver", "gpu", "gpu_memory", "pcie", "power_thermal"]


def test_dcgmi_diag_of_deployment_checks_alone_checks_no_gpu(ruleset, tmp_path):
    # NVIDIA/autopilot#68's table: the Deployment (software) checks alone, which load libraries and
    # read the denylist: no test of the GPU, its memory, PCIe or NVLink ran
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/dcgmi-diag.txt": ART / "dcgmi_diag" / "autopilot68_dcgm335_metadata_excerpt.txt"}),
                          ruleset, jobs=1)
    assert _checked(rep) == ["driver"], rep.reason


def test_nvidia_smi_q_section_checks_only_that_section(ruleset, tmp_path):
    # 'nvidia-smi -q -d TEMPERATURE': no ECC, remapped-row, PCIe or fabric section, yet all were
    # listed as checked
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/smi.txt": ART / "nvidia_smi_q" / "nvidia-smi-q-TEMPERATURE.txt"}), ruleset, jobs=1)
    assert rep.verdict == "healthy", [f.summary for f in rep.findings]
    assert _checked(rep) == ["gpu", "power_thermal"]


def test_nvidia_smi_q_whole_output_checks_every_section(ruleset, tmp_path):
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/smi.txt": ART / "nvidia_smi_q" / "nvidia-smi-q.txt"}), ruleset, jobs=1)
    assert _checked(rep) == ["gpu", "gpu_memory", "nvlink", "pcie", "power_thermal"]


def test_ibstat_without_a_port_checks_no_network(ruleset, tmp_path):
    # an ibstat that found no HCA shows no port: it was listed as having checked the network
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/ibstat.txt": ART / "ibstat" / "empty_session_no_hca.txt"}), ruleset, jobs=1)
    assert rep.verdict == "inconclusive"
    assert rep.checked == []


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
            if field:
                fields = by_kind[kind].model_fields
                assert field in fields and set(unless) <= set(fields), (name, kind)


def test_kernel_log_without_the_driver_s_lines_checks_no_gpu(ruleset, tmp_path):
    # a dmesg of PCIe AER lines alone: nothing of the NVIDIA driver, so its silence about Xids says
    # nothing; it was listed as having checked the GPU, its memory, NVLink and the driver
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/dmesg.txt": ART / "kernel_log" / "dmesg_aer_correctable_no_details.log"}),
                          ruleset, jobs=1)
    assert _checked(rep) == ["pcie"]
    rep = diagnose_bundle(_bundle(tmp_path / "2", {"node1/dmesg.txt": ART / "kernel_log" / "dmesg-nvrm.log"}), ruleset, jobs=1)
    assert _checked(rep) == ["driver", "gpu", "gpu_memory", "nvlink", "pcie"]


def test_dcgm_exporter_scrape_checks_only_the_families_it_holds(ruleset, tmp_path):
    # NVIDIA/dcgm-exporter#326's scrape: the Xid and framebuffer-free gauges alone, listed as having
    # checked the GPU's memory, temperatures and PCIe as well
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/metrics.txt": ART / "dcgm_exporter_scrape" / "dcgm_exporter326_xid_fb.txt"}),
                          ruleset, jobs=1)
    assert _checked(rep) == ["gpu"], rep.reason


def test_steth_probe_copy_run_alone_checks_nothing(ruleset, tmp_path):
    # the probe's copy bandwidths (judged against a baseline, not alone) were listed as a check
    # of the GPU and its memory; its burn, whose products are compared, is one
    rep = diagnose_bundle(_bundle(tmp_path, {"node1/probe.txt": ART / "steth_probe" / "device_h200_copy_run1.txt"}), ruleset, jobs=1)
    assert rep.verdict == "inconclusive" and rep.checked == []
    rep = diagnose_bundle(_bundle(tmp_path / "2", {"node1/probe.txt": ART / "steth_probe" / "device_h200_burn_run1.txt"}), ruleset, jobs=1)
    assert rep.verdict == "healthy" and _checked(rep) == ["gpu", "gpu_memory"]

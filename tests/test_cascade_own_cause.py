"""A rule's ``cascade_of`` causes never make a finding the cascade of a finding of its own rule and cause.

rules/gpu/nvrm_driver_message.yaml reads every NVRM message through knowledge/xid_nvrm_messages.yaml and is
a cascade of ``gpu_bar_not_assigned`` on its node (a GPU left without a BAR cannot be probed: nv-pci.c
nv_pci_probe goes to ``failed`` when nv_pci_validate_bars does not pass). The driver's own "BARn is 0M" is one
of the messages that rule reads (cause gpu_bar_not_assigned): on a node whose firmware left two GPUs without
BAR0 the two are siblings, each a root, not each other's cascade. Real sample:
fixtures/artefacts/kernel_log/dmesg_bar0_invalid_probe_failed.log (the BAR line, then the probe failure)."""
from __future__ import annotations

from stethoscope.engine.findings import SymptomMap, rank_findings
from stethoscope.engine.report import Entity, Finding


def _f(cause: str, gpu: str, rule: str = "nvrm_driver_message") -> Finding:
    return Finding(rank=0, rule=rule, title=rule, cause=cause, component="pcie", severity="critical",
                   confidence=0.8, role="independent", entity=Entity(label="n1", node="n1", gpu=gpu),
                   summary=f"{cause} {gpu}", actions=[], action_text="", evidence=[], evidence_total=0, nodes=["n1"])


CASCADES = SymptomMap({}, {"nvrm_driver_message": ("gpu_bar_not_assigned",)},
                      node_scoped=frozenset({"nvrm_driver_message"}))


def test_probe_failure_is_a_cascade_of_the_invalid_bar():
    got = rank_findings([_f("driver_error", "0000:c1:00.0"), _f("gpu_bar_not_assigned", "0000:c1:00.0")], CASCADES)
    assert [(f.cause, f.role) for f in got] == [("gpu_bar_not_assigned", "root_cause"), ("driver_error", "cascade")]


def test_two_gpus_without_a_bar_are_siblings():
    got = rank_findings([_f("gpu_bar_not_assigned", "0000:c1:00.0"), _f("gpu_bar_not_assigned", "0000:81:00.0")], CASCADES)
    assert [f.role for f in got] == ["root_cause", "root_cause"]
    assert all(not f.explained_by for f in got)


def test_the_pci_cores_finding_still_explains_the_drivers():
    # rules/pcie/gpu_bar_unassigned.yaml (the PCI core's "can't assign; no space") is another rule: it explains
    got = rank_findings([_f("gpu_bar_not_assigned", "0000:c1:00.0"),
                         _f("gpu_bar_not_assigned", "0000:c1:00.0", rule="gpu_bar_unassigned")], CASCADES)
    assert [(f.rule, f.role) for f in got] == [("gpu_bar_unassigned", "root_cause"), ("nvrm_driver_message", "cascade")]


def test_nvml_failing_beside_a_gpu_without_its_bar_is_its_cascade(tmp_path, ruleset):
    # forum.proxmox.com thread 179366 (round rQ4): the VM's driver rejected its only GPU for an invalid BAR, so nvidia-smi
    # found no driver to talk to; rules/driver/nvml_init_failed.yaml names gpu_bar_not_assigned among its cascade_of
    from pathlib import Path

    from stethoscope.engine.pipeline import diagnose_bundle
    root = Path(__file__).resolve().parent.parent
    (tmp_path / "n1").mkdir()
    (tmp_path / "n1" / "dmesg.txt").write_text(
        (root / "fixtures/artefacts/kernel_log/pvefs179366_bar_invalid_without_bar_line.log").read_text())
    (tmp_path / "n1" / "nvidia-smi.txt").write_text(
        (root / "fixtures/artefacts/nvml_init/pvefs179366_nvidia_smi_no_driver.txt").read_text())
    got = diagnose_bundle(tmp_path, ruleset).findings
    assert (got[0].cause, got[0].entity.gpu, got[0].role) == ("gpu_bar_not_assigned", "0000:01:00.0", "root_cause")
    # NVML's failure on that node is folded into the driver's probe failure of that GPU (one fault, read twice; the
    # driver's reading on the GPU speaks: engine/findings.py _same_fault): the finding that carries it is the cascade
    nvml = next(f for f in got if "nvml_init_failed" in (f.rules or [f.rule]))
    assert nvml.role == "cascade" and got[0].rank in nvml.explained_by

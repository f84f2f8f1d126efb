"""k8s-driver-manager's log: the driver pod's init container (facts/parsers/k8s_driver_manager.py)."""
import pytest

from stethoscope.facts.parsers import k8s_driver_manager

from parse_helper import parse_fixture as _parse  # tests/parsers/parse_helper.py


def test_unload_blocked_and_the_failure_after_it():
    # NVIDIA/gpu-operator#304: the shell driver-manager of gpu-operator v1.8.2
    r = _parse(k8s_driver_manager, "k8s_driver_manager/gpuoperator304_unload_in_use.log")
    assert [(f.evidence.line, f.kind, getattr(f, "refcount", None) or getattr(f, "event", None)) for f in r.facts] == [
        (16, "driver_unload_blocked", 350), (18, "driver_manager_failure", "uninstall_failed")]
    assert r.facts[0].message == "Could not unload NVIDIA driver kernel modules, driver is in use"
    # refcount, shutdown, the five waits, unloading, the two failures and "Auto drain ... is disabled"
    assert r.lines_used == 11 and r.errors == []


@pytest.mark.parametrize("rel, used", [("k8s_driver_manager/gpuoperator2166_go_labels_cut.log", 10),
                                       ("k8s_driver_manager/gpuoperator426_stern_prefix_cut.log", 10)])
def test_label_lines_of_both_releases_name_the_file(rel, used):
    # NVIDIA/gpu-operator#2166 (Go, logrus text), #426 (shell, stern's "<pod> <container>" prefix)
    r = _parse(k8s_driver_manager, rel)
    assert r.facts == [] and r.lines_used == used and r.errors == []


@pytest.mark.parametrize("line, event", [
    # cmd/driver-manager/main.go's forms, filled in
    ('time=2026-02-25T08:26:00Z level=info msg=Unable to cleanup driver modules, attempting again with node drain...', None),
    ("time=2026-02-25T08:26:00Z level=error msg=Failed to evict GPU operator components, attempting cleanup", "evict_failed"),
    ("Cannot proceed until all GPU pods are drained from the node. Exiting.", "drain_failed"),
    ("time=2026-02-25T08:26:00Z level=error msg=Failed to wait for dra-driver to shutdown: timed out waiting", "shutdown_wait_failed"),
    ("Unable to unbind vfio-pci driver from all devices", "vfio_unbind_failed"),
])
def test_failure_forms(line, event):
    text = "Getting current value of the 'nvidia.com/gpu.deploy.device-plugin' node label\n" + line + "\n"
    (f,) = _parse(k8s_driver_manager, text=text).facts
    assert (f.kind, getattr(f, "event", None)) == (("driver_unload_blocked", None) if event is None else ("driver_manager_failure", event))


def test_an_nvidia_smi_or_kernel_log_is_not_a_driver_manager_log():
    assert not k8s_driver_manager.detect("nvidia              34086912  350 nvidia_uvm,nvidia_modeset\n")
    assert not k8s_driver_manager.detect("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01\n")

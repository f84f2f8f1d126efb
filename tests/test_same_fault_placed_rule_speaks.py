"""One fault read twice, once at the node and once at a part of it, is one finding placed at the part
(engine/findings.py _fold_node_level); of equally severe and confident rules, the one that placed it speaks.
NVML's "No devices found" (nvml_init_failed, the node) beside the driver's own reason for that GPU (nvrm_driver_message:
the open module refusing a GPU without GSP) must lead with the driver's reason and its action, not with the container
runtime's (the two rules' ids used to decide it, in alphabetical order)."""
from __future__ import annotations

from pathlib import Path

import small_bundle

ROOT = Path(__file__).resolve().parents[1]
# zzzhouuu/truenas-nvidia-drivers#20 (wild sweep rY6): a Tesla P4 under the open module, verbatim
PASTE = (ROOT / "fixtures/artefacts/kernel_log/tnvd20_open_module_pascal_no_devices_paste.log").read_text()


def test_the_drivers_reason_on_the_gpu_speaks_for_nvmls_no_devices(tmp_path, ruleset):
    rep = small_bundle.diagnose(tmp_path, {"nas/out.txt": PASTE}, ruleset)
    first = rep.findings[0]
    assert (first.rule, first.cause, first.component, first.role) == ("nvrm_driver_message", "driver_error", "driver", "root_cause")
    assert first.entity.gpu == "0000:03:00.0"
    assert "nvml_init_failed" in first.rules
    assert first.actions == ["USE_SUPPORTED_KERNEL_MODULE"]
    assert "GSP" in first.summary and any("No devices found" in e.text for e in first.evidence)
    assert rep.verdict == "faulty"


def test_nvml_alone_keeps_its_reading(tmp_path, ruleset):
    # the same paste without the kernel's lines: NVML's failure is all there is, at the node
    text = "".join(ln for ln in PASTE.splitlines(keepends=True)[:3])
    rep = small_bundle.diagnose(tmp_path, {"nas/out.txt": text}, ruleset)
    first = rep.findings[0]
    assert (first.rule, first.cause, first.component) == ("nvml_init_failed", "driver_error", "driver")
    assert first.entity.gpu is None
    assert rep.verdict == "faulty"

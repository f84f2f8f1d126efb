"""kernel_log: a module the kernel refused for its signature (kernel/module/signing.c, lockdown)."""
from __future__ import annotations

from pathlib import Path

from stethoscope.facts.parsers import kernel_log
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts" / "kernel_log"


def parse_text(text: str, node: str = "n1"):
    return kernel_log.parse(Artefact(path="t.log", text=text, node=node))


def test_unsigned_module_rejected_in_dmesg():
    # the 6.x form, which names no module: kernel/module/signing.c pr_notice("Loading of %s is rejected\n", reason)
    # under dmesg's "[%5lu.%06lu] " prefix, CONSTRUCTED (a placeholder time; the words as NVIDIA/gpu-operator#1726's title)
    text = "[    1.000000] Loading of unsigned module is rejected\n"
    assert kernel_log.detect(text)
    (f,) = parse_text(text).facts
    assert (f.kind, f.check, f.process, f.message, f.timestamp) == (
        "kernel_module_signature_rejected", "unsigned", None, "Loading of unsigned module is rejected", "1.000000")


def test_lockdown_real_dmesg():
    # RinCat/RTL88x2BU-Linux-Driver#114: lockdown names the program that asked, not the module
    text = (FIX / "rtl88x2bu114_lockdown_unsigned_module_restricted.log").read_text()
    (f,) = parse_text(text).facts
    assert (f.check, f.process) == ("lockdown", "modprobe")
    assert f.message.startswith("Lockdown: modprobe: unsigned module loading is restricted")


def test_bare_line_of_an_issue_title_is_a_kernel_line():
    # NVIDIA/gpu-operator#1726's title, pasted without a prefix; journald's framing (saidsay-so/acpi_ec#8)
    text = "Loading of unsigned module is rejected\n"
    assert kernel_log.detect(text)
    (f,) = parse_text(text).facts
    assert f.check == "unsigned"
    r = parse_text("archlinux kernel: Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7\n")
    assert [(f.check, f.process) for f in r.facts] == [("lockdown", "modprobe")]
    # the distributions' lockdown patches before 5.4 (reason "Loading of unsigned module"), as a README quotes its dmesg
    text = "[  996.368547] Lockdown: insmod: Loading of unsigned module is restricted; see man kernel_lockdown.7\n"
    assert kernel_log.detect(text)
    assert [(f.check, f.process) for f in parse_text(text).facts] == [("lockdown", "insmod")]


def test_other_reasons_and_the_form_that_names_the_module():
    # signing.c's other reasons; 5.10-5.19's kernel/module.c: pr_notice("%s: loading of %s is rejected\n", info->name, reason)
    r = parse_text("[    5.1] Loading of module with unavailable key is rejected\n")
    assert [f.check for f in r.facts] == ["unavailable_key"]
    r = parse_text("[    5.2] nvidia: loading of unsigned module is rejected\n")
    (f,) = r.facts
    assert (f.kind, f.module, f.reason, f.source) == ("kernel_module_load_failure", "nvidia", "signature", "kernel")


def test_near_misses():
    # a module loaded with Secure Boot off only taints the kernel: no refusal; prose about the message is no kernel line
    r = parse_text("[   12.0] nvidia: module verification failed: signature and/or required key missing - tainting kernel\n")
    assert [f.kind for f in r.facts if "signature" in f.kind] == []
    assert not kernel_log.detect("Why is the loading of unsigned modules rejected here?\n")

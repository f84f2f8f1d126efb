"""modprobe/insmod output, the kernel's module-load lines and libibverbs warnings: real lines
from public threads (Mellanox/nv_peer_memory#84, NVIDIA/nccl#1044, SoftRoCE/rxe-dev#48)."""
from __future__ import annotations

from pathlib import Path

import pytest

from stethoscope.facts.parsers import kernel_log, libibverbs, modprobe
from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def test_modprobe_session_names_module_reason_and_prompt_host() -> None:
    text = (FIX / "modprobe" / "nv_peer_mem_unknown_symbol.txt").read_text()
    assert modprobe.detect(text)
    res = modprobe.parse(Artefact(path="other.txt", text=text))
    [f] = res.facts
    assert (f.node, f.module, f.reason, f.source) == ("n120", "nv_peer_mem", "unknown_symbol", "modprobe")
    assert res.lines_used == 2  # the insmod trace is read too


@pytest.mark.parametrize("line,module,reason", [
    ("modprobe: FATAL: Module nvidia_peermem not found in directory /lib/modules/5.15.0-91-generic", "nvidia_peermem", "not_found"),
    ("insmod: ERROR: could not insert module nv_peer_mem.ko: Unknown symbol in module", "nv_peer_mem", "unknown_symbol"),
    ("modprobe: ERROR: could not insert 'nvidia': No such device", "nvidia", "no_device"),
    # libkmod's ERR (kmod_module_insert_module) as its modprobe prints it, and as Witko/nvidia-xrun#144 retyped it
    ("modprobe: ERROR: ../libkmod/libkmod-module.c:838 kmod_module_insert_module() could not find module by name='nvidia'",
     "nvidia", "not_found"),
    ("modprobe: ERROR: could not find module by name 'nvidia'", "nvidia", "not_found"),
    ("modprobe: FATAL: nvidia_drm not found in directory /lib/modules/5.5.9-zen1-2-zen", "nvidia_drm", "not_found"),
    # CONSTRUCTED from kmod tools/modinfo.c modinfo_alias_do's ERR("Module %s not found.\n", alias)
    ("modinfo: ERROR: Module nvidia not found.", "nvidia", "not_found"),
])
def test_modprobe_forms(line: str, module: str, reason: str) -> None:
    [f] = modprobe.parse(Artefact(path="m.txt", text=line + "\n")).facts
    assert (f.module, f.reason) == (module, reason)


def test_modprobe_errors_relayed_by_a_service_are_read() -> None:
    # bottlerocket-os/bottlerocket#4218: driverdog relays modprobe's stderr after a console stamp and its tag
    text = (FIX / "modprobe" / "bottlerocket4218_driverdog_lockdown_not_permitted_mixed_console.txt").read_text()
    assert modprobe.detect(text)
    facts = modprobe.parse(Artefact(path="console.txt", text=text)).facts
    assert [(f.evidence.line, f.module, f.reason) for f in facts] == [
        (1, "nvidia", "not_permitted"), (2, "nvidia_uvm", "not_permitted"), (3, "nvidia_modeset", "not_permitted")]
    # the words inside a sentence are no relayed error ("run modprobe: ..." has no "ERROR: could not insert")
    assert modprobe.parse(Artefact(path="n.txt", text="see the modprobe: section of the manual\n")).facts == []


def test_nvidia_docker_1_uvm_load_failure_is_nvidia_uvm_not_loaded() -> None:
    # NVIDIA/nvidia-docker#480: nvidia-docker 1.x ran nvidia-modprobe -u -c=0 and logged its failure behind its
    # Go log label ("nvidia-docker | <date> <time> Error: ..."), after the reporter's sentence
    text = (FIX / "modprobe" / "nvidia_docker480_uvm_not_loaded.txt").read_text()
    assert modprobe.detect(text)
    res = modprobe.parse(Artefact(path="description.txt", text=text))
    [f] = res.facts
    assert (f.evidence.line, f.module, f.reason, f.source) == (2, "nvidia_uvm", "other", "modprobe")
    assert f.message == "Error: Could not load UVM kernel module. Is nvidia-modprobe installed?"
    # the first releases' shorter text (src/nvidia/nvidia.go: errors.New("Could not load UVM kernel module")), and
    # nvidia-docker-plugin's line behind its own label
    [g] = modprobe.parse(Artefact(path="p.txt", text=(
        "/usr/bin/nvidia-docker-plugin | 2017/06/24 18:23:36 Error: Could not load UVM kernel module\n"))).facts
    assert (g.module, g.message) == ("nvidia_uvm", "Error: Could not load UVM kernel module")
    # the words in prose, no "Error: " before them: not the tool's line
    assert not modprobe.detect("it says it could not load UVM kernel module, so I installed nvidia-modprobe\n")


def test_lsmod_prompt_alone_is_not_modprobe() -> None:
    assert not modprobe.detect("(pytorch) [root@gpu3 ~]# lsmod | grep nvidia_peermem\n")


def test_kernel_unknown_symbol_lines() -> None:
    text = (FIX / "kernel_log" / "dmesg_T_nv_peer_mem_unknown_symbol.log").read_text()
    res = kernel_log.parse(Artefact(path="dmesg.log", text=text))
    facts = [f for f in res.facts if f.kind == "kernel_module_load_failure"]
    assert [(f.module, f.symbol) for f in facts[:2]] == [("nv_peer_mem", "ib_register_peer_memory_client"),
                                                        ("nv_peer_mem", "ib_unregister_peer_memory_client")]
    assert len(facts) == 4 and not res.errors


def test_libibverbs_unused_provider_and_device_without_provider() -> None:
    benign = (FIX / "libibverbs" / "nccl1044_ipath_provider_missing.txt").read_text()
    [w] = libibverbs.parse(Artefact(path="a.txt", text=benign)).facts
    assert (w.what, w.provider, w.with_unusable_device) == ("provider_not_loaded", "libipathverbs-rdmav25.so", False)
    broken = (FIX / "libibverbs" / "rxe_dev48_no_provider_for_uverbs0.txt").read_text()
    whats = [(f.what, f.with_unusable_device) for f in libibverbs.parse(Artefact(path="b.txt", text=broken)).facts]
    assert whats == [("provider_not_loaded", True), ("no_provider_for_device", True)]
    assert not any(f.with_no_config_dir for f in libibverbs.parse(Artefact(path="b.txt", text=broken)).facts)


def test_libibverbs_no_config_dir_then_no_provider() -> None:
    """rdma-core libibverbs/init.c read_config: no /etc/libibverbs.d, no provider loaded, every device without one
    (PaddlePaddle/PaddleSpeech#2310, in a container)."""
    text = (FIX / "libibverbs" / "paddlespeech2310_no_config_dir_no_provider_docker.txt").read_text()
    facts = libibverbs.parse(Artefact(path="c.txt", text=text)).facts
    assert [(f.evidence.line, f.what, f.device, f.with_unusable_device, f.with_no_config_dir) for f in facts] == [
        (1, "no_config_dir", None, True, True),
        (2, "no_provider_for_device", "/sys/class/infiniband_verbs/uverbs1", True, True),
        (3, "no_provider_for_device", "/sys/class/infiniband_verbs/uverbs0", True, True)]


def test_libibverbs_provider_abi_mismatch() -> None:
    """rdma-core libibverbs/init.c match_driver's warning: the provider's ABI range and the kernel's version
    (k8snetworkplumbingwg/sriov-cni#348 in a pod; SoftRoCE/rxe-dev#74 the other way round)."""
    pod = (FIX / "libibverbs" / "sriovcni348_bnxt_re_abi_mismatch_pod_session.txt").read_text()
    facts = libibverbs.parse(Artefact(path="pod.txt", text=pod)).facts
    assert [(f.evidence.line, f.what, f.provider, f.kernel_abi, f.provider_abi, f.device) for f in facts][:1] == [
        (8, "provider_abi_mismatch", "bnxt_re", 6, "1 to 1", "/sys/class/infiniband/bnxt_re2")]
    assert len(facts) == 4 and {f.what for f in facts} == {"provider_abi_mismatch"}
    rxe = (FIX / "libibverbs" / "rxe_dev74_rxe_abi_mismatch_ibv_devices.txt").read_text()
    [w] = libibverbs.parse(Artefact(path="b.txt", text=rxe)).facts
    assert (w.provider, w.kernel_abi, w.provider_abi) == ("rxe", 1, "2 to 2")
    # a line a paste cut before the device still says which provider and versions (sgl-project/sglang#16242's last line)
    [c] = libibverbs.parse(Artefact(path="c.txt", text="libibverbs: Warning: Driver bnxt_re does not support the kernel ABI "
                                                        "of 6 (supports 1 to 1) for device\n")).facts
    assert (c.what, c.provider, c.device) == ("provider_abi_mismatch", "bnxt_re", None)


def test_librdmacm_start_up_lines() -> None:
    """librdmacm's check_abi_version / ucma_init lines (ofiwg/libfabric#512 verbatim; the older CMA form as Open MPI
    users pasted it): the ABI line and the device-list line are facts, "assuming: 4" is read with them."""
    text = (FIX / "libibverbs" / "libfabric512_rdmacm_no_devices.txt").read_text()
    assert libibverbs.detect(text)
    res = libibverbs.parse(Artefact(path="fi_info.txt", text=text))
    assert [(f.evidence.line, f.what) for f in res.facts] == [(1, "rdmacm_abi_unreadable"), (3, "rdmacm_no_device_list")]
    assert res.lines_used == 3
    old = libibverbs.parse(Artefact(path="o.txt", text="librdmacm: couldn't read ABI version.\nlibrdmacm: assuming: 4\n"
                                                      "CMA: unable to get RDMA device list\n")).facts
    assert [f.what for f in old] == ["rdmacm_abi_unreadable", "rdmacm_no_device_list"]
    assert not libibverbs.detect("CMA: unable to get the route\n")


def test_kernel_gpl_only_symbol_refusal_of_nvidia_fs() -> None:
    # NVIDIA/gds-nvidia-fs#48: kernel 6.5's inherit_taint refuses each nvidia_p2p_* symbol of the proprietary nvidia.ko
    text = (FIX / "kernel_log" / "gdsnvidiafs48_nvidia_fs_gpl_only_symbols.log").read_text()
    assert kernel_log.detect(text)
    facts = [f for f in kernel_log.parse(Artefact(path="dmesg.txt", text=text, node="n")).facts
             if f.kind == "kernel_module_load_failure"]
    assert [(f.evidence.line, f.module, f.reason, f.symbol) for f in facts[:2]] == [
        (1, "nvidia_fs", "gpl_only_symbols", "nvidia_p2p_dma_unmap_pages"),
        (2, "nvidia_fs", "unknown_symbol", "nvidia_p2p_dma_unmap_pages"),
    ]
    assert len(facts) == 12
    # the 5.15-6.5 form names no symbol
    [f] = [f for f in kernel_log.parse(Artefact(
        path="d.txt", text="[ 3927.730583] nvidia_fs: module using GPL-only symbols uses symbols from proprietary module nvidia.\n",
        node="n")).facts if f.kind == "kernel_module_load_failure"]
    assert (f.module, f.reason, f.symbol) == ("nvidia_fs", "gpl_only_symbols", None)
    # the warning of a module that only inherits the taint is no failure
    assert [f for f in kernel_log.parse(Artefact(
        path="d.txt", text="[  1.0] foo: module uses symbols nvidia_p2p_get_pages from proprietary module nvidia, inheriting taint.\n",
        node="n")).facts if f.kind == "kernel_module_load_failure"] == []


@pytest.mark.parametrize("line", [
    # Frogging-Family/nvidia-all#90: modinfo of a path typed by hand (the module lives elsewhere): not the driver's fault
    "modinfo: ERROR: Module /usr/lib/modules/5.14.21-239-tkg-pds-llvm/kernel/drivers/video/nvidia.ko not found.",
    # CONSTRUCTED from kmod tools/modinfo.c: an alias lookup that failed, not a module missing
    "modinfo: ERROR: Module alias nvidia not found.",
])
def test_modinfo_errors_that_name_no_missing_module_are_not_read(line: str) -> None:
    assert modprobe.parse(Artefact(path="m.txt", text=line + "\n")).facts == []

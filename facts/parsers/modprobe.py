"""``modprobe`` / ``insmod`` output as operators paste it (``modprobe -v nv_peer_mem``,
``sudo modprobe nvidia_peermem``), and the fact both this reader and the kernel log give when a
kernel module cannot be loaded.

Sample content (Mellanox/nv_peer_memory#84, a RHEL 7 host after an OFED change; kmod's
tools/modprobe.c and tools/insmod.c format strings for the other forms)::

    [root@n120 ~]# modprobe -v nv_peer_mem
    insmod /lib/modules/3.10.0-1127.19.1.el7.x86_64/extra/nv_peer_mem.ko
    modprobe: ERROR: could not insert 'nv_peer_mem': Unknown symbol in module, or unknown parameter (see dmesg)

nvidia-docker 1.x loads the CUDA unified-memory module itself before it starts a GPU container
(``nvidia-modprobe -u -c=0``) and logs its failure behind its log label (NVIDIA/nvidia-docker#480,
driver 384.90)::

    nvidia-docker | 2017/09/27 22:08:44 Error: Could not load UVM kernel module. Is nvidia-modprobe installed?

Facts: ``kernel_module_load_failure`` per ``modprobe: ERROR: could not insert 'M': REASON``,
``modprobe: FATAL: Module M not found in directory D``, libkmod's ``could not find module by name='M'``,
``modinfo: ERROR: Module M not found.`` (``source`` modinfo; a path in its place is no module name and is not read)
and ``insmod: ERROR: could not insert module M.ko: REASON`` line (``module`` with dashes as underscores, as the kernel names it;
``reason`` from the errno text; nvidia-docker's line: module ``nvidia_uvm``, reason ``other``, it names
no errno). The ``insmod <path>`` trace of ``modprobe -v`` counts as read.
The node is the host of a shell prompt in the file (``[root@n120 ~]#``), else the bundle's.
Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.kernel import (  # noqa: F401 - the fact classes live in facts/kinds
    KernelModuleLoadFailure,
)
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "modprobe"

# modprobe: ERROR: could not insert 'nv_peer_mem': Unknown symbol in module, or unknown parameter (see dmesg)
# modprobe: FATAL: Module nvidia_peermem not found in directory /lib/modules/5.15.0-91-generic   (kmod's "Module %s not found in directory %s")
# insmod: ERROR: could not insert module nv_peer_mem.ko: Unknown symbol in module                   (kmod's insmod)
# insmod /lib/modules/3.10.0-1127.19.1.el7.x86_64/extra/nv_peer_mem.ko                              (modprobe -v trace)
# The error lines also arrive relayed by the service that ran modprobe, after its own prefix (a console's
# stamp and syslog tag, a "stderr: " label; bottlerocket-os/bottlerocket#4218, Bottlerocket's driverdog):
# 5.879228] driverdog[2088]: 23:10:41 [ERROR] '/usr/bin/modprobe' failed - stderr: modprobe: ERROR: could not insert 'nvidia': Operation not permitted
# [    5.881035] driverdog[2088]: modprobe: ERROR: could not insert 'nvidia_uvm': Operation not permitted
# modinfo: ERROR: Module nvidia not found.            (kmod tools/modinfo.c modinfo_alias_do: ERR("Module %s not found.\n", alias):
#   no module of that name in /lib/modules/$(uname -r)'s index: none installed for the running kernel. CONSTRUCTED from the
#   format: the even threads that paste it name a path, which is not read, below)
# modinfo: ERROR: Module /usr/lib/modules/5.14.21-239-tkg-pds-llvm/kernel/drivers/video/nvidia.ko not found.   (Frogging-Family/
#   nvidia-all#90: a path typed by hand where the module is not, its DKMS copy elsewhere: no fault of the driver; not read)
# modprobe: ERROR: ../libkmod/libkmod-module.c:838 kmod_module_insert_module() could not find module by name='iwlwifi'
#   (libkmod's own ERR when the name resolves to no module file, before modprobe's "could not insert" line; the quoting as
#   the kmod releases print it, the file:line before it of kmod 13-29)
# modprobe: ERROR: could not find module by name 'nvidia'          (Witko/nvidia-xrun#144: the same, as its reporter retyped it)
# modprobe: FATAL: nvidia_drm not found in directory /lib/modules/5.5.9-zen1-2-zen   (Witko/nvidia-xrun#144, "Module " left out)
_LINE = re.compile(
    r"^(?:(?:.*?[#$] |.*?(?<=[\s:]))?(?:modprobe: (?:ERROR|FATAL): (?:could not insert '(?P<mod>[^']+)': (?P<why>[^\n]*\S|[^\S\n])"
    r"|(?:Module )?(?P<nf>\S+) not found in directory (?P<dir>\S+)"
    r"|(?:[^\n']{0,200}? )?could not find module by name ?=?'(?P<byname>[^'\s]+)')"
    r"|modinfo: ERROR: Module (?P<mi>[^\s/]+) not found\."
    r"|insmod: ERROR: could not insert module (?P<ko>\S+?)(?:\.ko(?:\.[gx]z|\.zst)?)?: (?P<kwhy>[^\n]*\S|[^\S\n]))"
    r"|(?:.*?[#$] )?(?P<trace>insmod /\S+\.ko(?:\.[gx]z|\.zst)?\b(?:[^\n]*\S)?))\s*$",
    re.M,
)
# [root@n120 ~]# modprobe -v nv_peer_mem          root@node1:~# modprobe nvidia_peermem        (pytorch) [root@gpu3 ~]#
_PROMPT = re.compile(r"^(?:\(\S+\) )?(?:\[[\w.-]+@(?P<h1>[A-Za-z0-9][\w.-]*)[^\]\n]*\]|[\w.-]+@(?P<h2>[A-Za-z0-9][\w.-]*):[^\n#$]*)[#$] ", re.M)

# nvidia-docker | 2017/09/27 22:08:44 Error: Could not load UVM kernel module. Is nvidia-modprobe installed?
#   (NVIDIA/nvidia-docker#480, nvidia-docker 1.0: tools/src/nvidia/nvidia.go LoadUVM() returns errors.New("Could not
#   load UVM kernel module. Is nvidia-modprobe installed?") when "nvidia-modprobe -u -c=0" fails, its first versions
#   errors.New("Could not load UVM kernel module"); main.go logs it with log.Panicln("Error:", err) under
#   log.SetPrefix(os.Args[0] + " | "), so nvidia-docker-plugin's line is the same after its own label)
_NVIDIA_DOCKER_UVM = re.compile(r"\bError: Could not load UVM kernel module\b(?:\. Is nvidia-modprobe installed\?)?")

# errno texts of init_module/finit_module as strerror prints them (kmod passes them through), most specific first
_REASONS = (
    ("Unknown symbol in module", "unknown_symbol"),  # ENOENT from the kernel: a symbol it does not export (see dmesg)
    ("Invalid module format", "invalid_format"),      # ENOEXEC: built for another kernel (version magic, vermagic)
    ("Exec format error", "invalid_format"),
    ("Required key not available", "signature"),      # EKEYREJECTED/ENOKEY under Secure Boot
    ("Key was rejected by service", "signature"),
    ("Operation not permitted", "not_permitted"),
    ("No such device", "no_device"),                  # the module loaded, found no hardware it drives
    ("Invalid argument", "invalid_argument"),
    ("File exists", "already_loaded"),
)


def module_name(raw: str) -> str:
    """``nv-peer-mem`` / ``/lib/.../nv_peer_mem.ko.xz`` -> ``nv_peer_mem``: the kernel's form."""
    name = raw.rsplit("/", 1)[-1]
    name = re.sub(r"\.ko(?:\.[gx]z|\.zst)?$", "", name)
    return name.replace("-", "_")


def failure_reason(text: str) -> str:
    return next((r for k, r in _REASONS if k in text), "other")


def detect(head: str) -> bool:
    if "UVM kernel module" in head and _NVIDIA_DOCKER_UVM.search(head) is not None:
        return True
    if "modprobe: " not in head and "insmod" not in head and "modinfo: ERROR: Module " not in head:
        return False
    return any(m["trace"] is None for _, m in _scan(head))


def _scan(text: str):
    for m in _LINE.finditer(text):
        yield m.start(), m


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    prompt = _PROMPT.search(artefact.text)
    node = artefact.node_for((prompt["h1"] or prompt["h2"]) if prompt else None)
    for n, m in iter_matches(_LINE, artefact):
        result.lines_used += 1
        if m["trace"] is not None:
            continue
        msg = m.group().strip()
        if m["nf"] or m["byname"] or m["mi"]:
            fb.add(KernelModuleLoadFailure, n, node=node, module=module_name(m["nf"] or m["byname"] or m["mi"]),
                   reason="not_found", message=msg, source="modinfo" if m["mi"] else "modprobe")
            continue
        why = m["why"] or m["kwhy"]
        fb.add(KernelModuleLoadFailure, n, node=node, module=module_name(m["mod"] or m["ko"]),
               reason=failure_reason(why), message=msg, source="modprobe")
    if "UVM kernel module" in artefact.text:
        for n, m in iter_matches(_NVIDIA_DOCKER_UVM, artefact):
            result.lines_used += 1
            fb.add(KernelModuleLoadFailure, n, node=node, module="nvidia_uvm", reason="other", message=m.group(),
                   source="modprobe")
    return result


#: line signatures (facts/classify.py): modprobe's and insmod's error lines
SIGNATURES = (r"(?m)modprobe: (?:ERROR|FATAL): |insmod: ERROR: could not insert |modinfo: ERROR: Module [^\s/]+ not found\.",
              _NVIDIA_DOCKER_UVM.pattern)

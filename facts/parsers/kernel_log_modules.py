"""Kernel log lines of a module the kernel refused to load (kernel/module.c), for
:mod:`stethoscope.facts.parsers.kernel_log`. They give ``kernel_module_load_failure`` facts
(the class is in :mod:`stethoscope.facts.parsers.modprobe`, whose ``modprobe: ERROR`` line is the
same event seen from user space).

Real sample lines (Mellanox/nv_peer_memory#84) and the kernel's format strings::

    [Fri Feb 12 11:47:20 2021] nv_peer_mem: Unknown symbol ib_register_peer_memory_client (err 0)
    pr_warn("%s: Unknown symbol %s (err %d)\\n", ...)            (resolve_symbol_wait)
    pr_warn("%s: disagrees about version of symbol %s\\n", ...)  (check_version: modversions CRC differs)
    pr_err("%s: version magic '%s' should be '%s'\\n", ...)      (check_modinfo: built for another kernel)
    pr_err("%s: module using GPL-only symbols uses symbols %s from proprietary module %s.\\n", mod->name, name, owner->name)
        (kernel/module/main.c inherit_taint, 5.15+; the symbol's name since 6.6, before it "... uses symbols from
        proprietary module %s.": a GPL module, nvidia-fs or another, that may not import the proprietary nvidia.ko's
        symbols; each such symbol then fails as "Unknown symbol ... (err -2)")
    [78175.093303] nvidia_fs: module using GPL-only symbols uses symbols nvidia_p2p_dma_unmap_pages from proprietary module nvidia.
                                                                                  (NVIDIA/gds-nvidia-fs#48, kernel 6.5.0-44)

and nvidia-peermem's note that the driver's free callback met a context already torn down
(Mellanox/nv_peer_memory#120, quoted by NVIDIA, who calls it harmless: a mitigation of driver issue
4272659, fully fixed in R560), a ``peermem_invalid_context`` fact::

    [25033.266922] nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing

and a module refused for its signature (Secure Boot, ``module.sig_enforce=1``, kernel lockdown): the
forms that name the module are ``kernel_module_load_failure`` facts (reason ``signature``), the
others ``kernel_module_signature_rejected`` (real lines: NVIDIA/gpu-operator#1726's title,
RinCat/RTL88x2BU-Linux-Driver#114)::

    Loading of unsigned module is rejected
    [  398.381052] Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import FactBuilder
from stethoscope.facts.kinds.kernel import KernelModuleSignatureRejected, PeermemInvalidContext
from stethoscope.facts.parsers.modprobe import KernelModuleLoadFailure

#: the literal part of each line: kernel_log's keyword scan looks for these
KEYWORDS = (r"Unknown symbol \w|disagrees about version of symbol|: version magic '|ERROR detected invalid context, skipping"
            r"|: module using GPL-only symbols uses symbols "
            r"|oading of (?:unsigned module|module with) |: unsigned module loading is restricted")

# nv_peer_mem: Unknown symbol ib_register_peer_memory_client (err 0)
# nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client
# nvidia: version magic '5.15.0-88-generic SMP mod_unload modversions ' should be '5.15.0-91-generic SMP mod_unload modversions '
# nvidia_fs: module using GPL-only symbols uses symbols nvidia_p2p_get_pages from proprietary module nvidia.   (gds-nvidia-fs#48)
# nvidia_fs: module using GPL-only symbols uses symbols from proprietary module nvidia.                        (5.15-6.5's form)
_LINE = re.compile(
    r"^(?P<mod>[\w-]+): (?:Unknown symbol (?P<sym>\w+)(?: \(err -?\d+\))?"
    r"|disagrees about version of symbol (?P<vsym>\w+)|(?P<magic>version magic) '.*"
    r"|module using GPL-only symbols uses symbols (?:(?P<gsym>\w+) )?from (?P<gpl>proprietary module) [\w-]+\.?)$"
)


def parse_module_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int]) -> bool:
    """Add the fact of one module-load line; False when the message is not one."""
    m = _LINE.match(msg.strip())
    if m is None:
        return False
    reason = ("unknown_symbol" if m["sym"] else "symbol_version" if m["vsym"] else "gpl_only_symbols" if m["gpl"]
              else "version_magic")
    b.add(KernelModuleLoadFailure, ln, module=m["mod"].replace("-", "_"), reason=reason, symbol=m["sym"] or m["vsym"] or m["gsym"],
          message=msg.strip(), source="kernel", node=common["node"])
    used.add(ln)
    return True


# nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing
#   (nvidia-peermem's peer_err: "<module> <function>:<line> ERROR <message>")
_PEERMEM = re.compile(
    r"(?:^|\s)(?P<mod>nvidia[-_]peermem|nv[-_]peer[-_]mem|nv_mem) (?P<func>\w+):\d+ ERROR detected invalid context, skipping further processing\s*$"
)


def parse_peermem_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int]) -> bool:
    """Add the fact of nvidia-peermem's invalid-context line; False when the message is not one."""
    m = _PEERMEM.search(msg.strip())  # (a framing the prefix reader does not know may stand before it)
    if m is None:
        return False
    b.add(PeermemInvalidContext, ln, module=m["mod"].replace("-", "_"), function=m["func"],
          message=msg.strip()[m.start("mod"):], **common)
    used.add(ln)
    return True


# Linux kernel/module/signing.c module_sig_check (6.x, and 5.4's "%s is rejected" with "Loading of <reason>"):
#   pr_notice("Loading of %s is rejected\n", reason)   reason: "unsigned module", "module with unsupported crypto",
#   "module with unavailable key"
# Loading of unsigned module is rejected                                  (NVIDIA/gpu-operator#1726's title)
# kernel/module.c of 5.10-5.19 named the module: pr_notice("%s: loading of %s is rejected\n", info->name, reason)
# nvidia: loading of unsigned module is rejected
# security/lockdown/lockdown.c lockdown_is_locked_down: "Lockdown: %s: %s is restricted; see man kernel_lockdown.7\n",
#   current->comm, lockdown_reasons[LOCKDOWN_MODULE_SIGNATURE] ("unsigned module loading")
# [  398.381052] Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7   (RTL88x2BU#114)
# the distributions' lockdown patches before 5.4 (Ubuntu 18.04's 4.15: the reason "Loading of unsigned module"):
# [  996.368547] Lockdown: insmod: Loading of unsigned module is restricted; see man kernel_lockdown.7
_SIGNATURE = re.compile(
    r"(?:^|\s)(?:(?P<mod>[\w-]+): l|L)oading of (?P<why>unsigned module|module with unavailable key"
    r"|module with unsupported crypto) is rejected\s*$"
    r"|(?:^|\s)Lockdown: (?:(?P<comm>[^:\n]{1,16}): )?(?:unsigned module loading|Loading of unsigned module) is restricted\b"
)
#: the bare forms, pasted without a kernel prefix (an issue title): kernel_log's detect() knows them
DETECT = (r"(?:^|: |\] )Loading of (?:unsigned module|module with unavailable key|module with unsupported crypto) is rejected"
          r"|Lockdown: (?:[^:\n]{1,16}: )?(?:unsigned module loading|Loading of unsigned module) is restricted")
_CHECK = {"unsigned module": "unsigned", "module with unavailable key": "unavailable_key",
          "module with unsupported crypto": "unsupported_crypto"}


def parse_signature_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int]) -> bool:
    """Add the fact of a module refused for its signature; False when the message is not one."""
    m = _SIGNATURE.search(msg.strip())
    if m is None:
        return False
    text = msg.strip()[m.start():].strip()
    if m["mod"]:
        b.add(KernelModuleLoadFailure, ln, module=m["mod"].replace("-", "_"), reason="signature", message=text,
              source="kernel", node=common["node"])
    else:
        check = _CHECK[m["why"]] if m["why"] else "lockdown"
        b.add(KernelModuleSignatureRejected, ln, check=check, process=m["comm"], message=text, **common)
    used.add(ln)
    return True

"""Kernel log lines of a module the kernel refused to load (kernel/module.c), for
:mod:`stethoscope.facts.parsers.kernel_log`. They give ``kernel_module_load_failure`` facts
(the class is in :mod:`stethoscope.facts.parsers.modprobe`, whose ``modprobe: ERROR`` line is the
same event seen from user space).

Real sample lines (Mellanox/nv_peer_memory#84) and the kernel's format strings::

    [Fri Feb 12 11:47:20 2021] nv_peer_mem: Unknown symbol ib_register_peer_memory_client (err 0)
    pr_warn("%s: Unknown symbol %s (err %d)\\n", ...)            (resolve_symbol_wait)
    pr_warn("%s: disagrees about version of symbol %s\\n", ...)  (check_version: modversions CRC differs)
    pr_err("%s: version magic '%s' should be '%s'\\n", ...)      (check_modinfo: built for another kernel)

and nvidia-peermem's note that the driver's free callback met a context already torn down
(Mellanox/nv_peer_memory#120, quoted by NVIDIA, who calls it harmless: a mitigation of driver issue
4272659, fully fixed in R560), a ``peermem_invalid_context`` fact::

    [25033.266922] nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import FactBuilder
from stethoscope.facts.kinds.kernel import PeermemInvalidContext
from stethoscope.facts.parsers.modprobe import KernelModuleLoadFailure

#: the literal part of each line: kernel_log's keyword scan looks for these
KEYWORDS = r"Unknown symbol \w|disagrees about version of symbol|: version magic '|ERROR detected invalid context, skipping"

# nv_peer_mem: Unknown symbol ib_register_peer_memory_client (err 0)
# nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client
# nvidia: version magic '5.15.0-88-generic SMP mod_unload modversions ' should be '5.15.0-91-generic SMP mod_unload modversions '
_LINE = re.compile(
    r"^(?P<mod>[\w-]+): (?:Unknown symbol (?P<sym>\w+)(?: \(err -?\d+\))?"
    r"|disagrees about version of symbol (?P<vsym>\w+)|(?P<magic>version magic) '.*)$"
)


def parse_module_line(b: FactBuilder, ln: int, msg: str, common: dict, used: set[int]) -> bool:
    """Add the fact of one module-load line; False when the message is not one."""
    m = _LINE.match(msg.strip())
    if m is None:
        return False
    reason = "unknown_symbol" if m["sym"] else ("symbol_version" if m["vsym"] else "version_magic")
    b.add(KernelModuleLoadFailure, ln, module=m["mod"].replace("-", "_"), reason=reason, symbol=m["sym"] or m["vsym"],
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

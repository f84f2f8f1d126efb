"""libibverbs' own warnings, printed on stderr by any verbs program (``ibv_devinfo``, perftest,
NCCL, MPI) while it loads its providers (rdma-core libibverbs/init.c, dynamic_driver.c).

Sample content (NVIDIA/nccl#1044, linux-rdma/perftest#262, SoftRoCE/rxe-dev#48, nminoru/pib#2,
spidernet-io/spiderpool docs/usage/rdma-roce.md)::

    libibverbs: Warning: couldn't load driver 'libipathverbs-rdmav25.so': libipathverbs-rdmav25.so: cannot open shared object file: No such file or directory
    libibverbs: Warning: couldn't load driver 'libmana-rdmav34.so': libmana-rdmav34.so: cannot open shared object file: No such file or directory
    libibverbs: Warning: couldn't load driver 'rxe': librxe-rdmav2.so: cannot open shared object file: No such file or directory
    libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0
    libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.
    libibverbs: Warning: couldn't stat '/sys/class/infiniband/mlx5_4'.

Facts: ``verbs_warning`` per line: ``what`` is ``provider_not_loaded`` (a provider listed in
/etc/libibverbs.d that is not installed: harmless unless a device needs it), ``no_config_dir``,
``no_provider_for_device`` (a kernel RDMA device that no installed provider drives: that device is
unusable from user space), ``device_not_visible`` (``couldn't stat '/sys/class/infiniband/mlx5_4'``:
rdma-core v15-v24's find_sysfs_devs found a verbs device in /sys/class/infiniband_verbs whose RDMA
device this process cannot see, and skipped it: a container shown every uverbs device of the host
but given only some RDMA devices, an RDMA device of another network namespace, or one removed
meanwhile), ``memlock_limit`` (``RLIMIT_MEMLOCK is N bytes``), or ``other``;
``with_unusable_device`` when the same output has a ``no userspace device-specific driver`` line.
The memlock warning is also a ``resource_limit`` (memlock, ``limit_bytes``, source libibverbs),
the fact :mod:`ulimit` makes of a shell's ``ulimit -l``: rules judge the limit once, whoever
printed it (libibverbs prints it only for a soft limit of 32768 bytes or less, and not for root:
rdma-core libibverbs/init.c ``check_memlock_limit``). Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.host import ResourceLimit
from stethoscope.facts.kinds.network import VerbsWarning  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult, iter_matches

KIND = "libibverbs"

# libibverbs: Warning: couldn't load driver 'libipathverbs-rdmav25.so': libipathverbs-rdmav25.so: cannot open ...
# libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0
# libibverbs: Warning: RLIMIT_MEMLOCK is 65536 bytes.
_LINE = re.compile(r"^.*?\blibibverbs: Warning: (?P<msg>(?:[^\n]*\S)?)\s*$", re.M)
_PROVIDER = re.compile(r"^couldn't load driver '(?P<name>[^']+)': (?P<err>.+)$")
_NO_PROVIDER = re.compile(r"^no userspace device-specific driver found for (?P<dev>\S+)")
_CONFIG_DIR = re.compile(r"^couldn't open config directory '(?P<dir>[^']+)'")
_MEMLOCK = re.compile(r"^RLIMIT_MEMLOCK is (?P<bytes>\d+) bytes")
# libibverbs: Warning: couldn't stat '/sys/class/infiniband/mlx5_4'.      (spidernet-io/spiderpool docs/usage/rdma-roce.md, in a pod;
#   rdma-core v15-v24 libibverbs/init.c find_sysfs_devs: PFX "Warning: couldn't stat '%s'.\n" of "%s/class/infiniband/%s")
_NOT_VISIBLE = re.compile(r"^couldn't stat '(?P<path>/sys/class/infiniband/[^']+)'")


def detect(head: str) -> bool:
    return "libibverbs: Warning: " in head


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    unusable = "no userspace device-specific driver found" in artefact.text
    for n, m in iter_matches(_LINE, artefact):
        msg = m["msg"]
        result.lines_used += 1
        fields: dict = {"what": "other"}
        if p := _PROVIDER.match(msg):
            fields = {"what": "provider_not_loaded", "provider": p["name"]}
        elif p := _NO_PROVIDER.match(msg):
            fields = {"what": "no_provider_for_device", "device": p["dev"]}
        elif _CONFIG_DIR.match(msg):
            fields = {"what": "no_config_dir"}
        elif p := _NOT_VISIBLE.match(msg):
            fields = {"what": "device_not_visible", "device": p["path"]}
        elif p := _MEMLOCK.match(msg):
            fields = {"what": "memlock_limit", "memlock_bytes": int(p["bytes"])}
            fb.add(ResourceLimit, n, resource="memlock", value=p["bytes"], limit_bytes=int(p["bytes"]), source="libibverbs")
        fb.add(VerbsWarning, n, message=msg, with_unusable_device=unusable, **fields)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"libibverbs: Warning: ",)

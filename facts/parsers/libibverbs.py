"""libibverbs' own warnings, printed on stderr by any verbs program (``ibv_devinfo``, perftest,
NCCL, MPI) while it loads its providers (rdma-core libibverbs/init.c, dynamic_driver.c).

Sample content (NVIDIA/nccl#1044, linux-rdma/perftest#262, SoftRoCE/rxe-dev#48, nminoru/pib#2,
spidernet-io/spiderpool docs/usage/rdma-roce.md, k8snetworkplumbingwg/sriov-cni#348)::

    libibverbs: Warning: couldn't load driver 'libipathverbs-rdmav25.so': libipathverbs-rdmav25.so: cannot open shared object file: No such file or directory
    libibverbs: Warning: couldn't load driver 'libmana-rdmav34.so': libmana-rdmav34.so: cannot open shared object file: No such file or directory
    libibverbs: Warning: couldn't load driver 'rxe': librxe-rdmav2.so: cannot open shared object file: No such file or directory
    libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0
    libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.
    libibverbs: Warning: couldn't stat '/sys/class/infiniband/mlx5_4'.
    libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2

Facts: ``verbs_warning`` per line: ``what`` is ``provider_not_loaded`` (a provider listed in
/etc/libibverbs.d that is not installed: harmless unless a device needs it), ``no_config_dir``,
``no_provider_for_device`` (a kernel RDMA device that no installed provider drives: that device is
unusable from user space), ``device_not_visible`` (``couldn't stat '/sys/class/infiniband/mlx5_4'``:
rdma-core v15-v24's find_sysfs_devs found a verbs device in /sys/class/infiniband_verbs whose RDMA
device this process cannot see, and skipped it: a container shown every uverbs device of the host
but given only some RDMA devices, an RDMA device of another network namespace, or one removed
meanwhile), ``memlock_limit`` (``RLIMIT_MEMLOCK is N bytes``), ``provider_abi_mismatch`` (``Driver bnxt_re does
not support the kernel ABI of 6 (supports 1 to 1) for device ...``: the installed provider and the kernel driver
speak different uverbs ABI versions, so the device is left out: a container's rdma-core older or newer than the
host's kernel driver; ``provider`` the driver name, ``kernel_abi``, ``provider_abi`` the range), or ``other``;
``with_unusable_device`` when the same output has a ``no userspace device-specific driver`` line,
``with_no_config_dir`` when it has a ``couldn't open config directory`` line (rdma-core libibverbs/init.c
read_config: ``fprintf(stderr, PFX "Warning: couldn't open config directory '%s'.\n", IBV_CONFIG_DIR)``, then it
returns without a driver name, so no provider is loaded and every device is left without one).
librdmacm's start-up lines (any program linking it: Open MPI's openib, libfabric's verbs provider, rping)
are read too: ``couldn't read ABI version.`` (with its ``assuming: 4``) is ``rdmacm_abi_unreadable``
(/sys/class/misc/rdma_cm/abi_version absent: the rdma_ucm module not loaded, or no RDMA stack),
``Fatal: unable to get RDMA device list`` (older: ``CMA: unable to get RDMA device list``) is
``rdmacm_no_device_list`` (libibverbs listed no device: none on the node or none visible to the process).
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
# libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2
#   (k8snetworkplumbingwg/sriov-cni#348, in a pod; SoftRoCE/rxe-dev#74: "Driver rxe ... ABI of 1 (supports 2 to 2) ... rxe0";
#   rdma-core libibverbs/init.c match_driver: PFX "Warning: Driver %s does not support the kernel ABI of %u (supports %u to
#   %u) for device %s\n", then the device is not added: no verbs program of this user space can open it)
# librdmacm: Warning: couldn't read ABI version.        (ofiwg/libfabric#512, fi_info on a host without verbs devices; librdmacm
# librdmacm: Warning: assuming: 4                         check_abi_version: /sys/class/misc/rdma_cm/abi_version unreadable, i.e. the
# librdmacm: Fatal: unable to get RDMA device list        rdma_ucm module not loaded; ucma_init: ibv_get_device_list found none;
# CMA: unable to get RDMA device list                     older librdmacm: printf("CMA: unable to get RDMA device list\n"), its
#                                                         lines "librdmacm: couldn't read ABI version." / "librdmacm: assuming: 4")
_RDMACM = re.compile(r"^.*?(?:\blibrdmacm: (?:Warning: )?(?P<abi>couldn't read ABI version\.)|\blibrdmacm: (?:Warning: )?(?P<assume>assuming: \d{1,3})"
                     r"|(?:\blibrdmacm: Fatal: |\bCMA: )(?P<list>unable to get RDMA device list))\s*$", re.M)
_ABI = re.compile(r"^Driver (?P<drv>\S{1,64}) does not support the kernel ABI of (?P<abi>\d{1,5}) \(supports (?P<lo>\d{1,5}) to (?P<hi>\d{1,5})\)"
                  r"(?: for device (?P<dev>\S{1,200}))?")


def detect(head: str) -> bool:
    return "libibverbs: Warning: " in head or (("librdmacm: " in head or "CMA: unable" in head) and _RDMACM.search(head) is not None)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    unusable = "no userspace device-specific driver found" in artefact.text
    no_config = "couldn't open config directory" in artefact.text
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
        elif p := _ABI.match(msg):
            fields = {"what": "provider_abi_mismatch", "provider": p["drv"], "device": p["dev"], "kernel_abi": int(p["abi"]),
                      "provider_abi": f"{p['lo']} to {p['hi']}"}
        elif p := _MEMLOCK.match(msg):
            fields = {"what": "memlock_limit", "memlock_bytes": int(p["bytes"])}
            fb.add(ResourceLimit, n, resource="memlock", value=p["bytes"], limit_bytes=int(p["bytes"]), source="libibverbs")
        fb.add(VerbsWarning, n, message=msg, with_unusable_device=unusable, with_no_config_dir=no_config, **fields)
    if "librdmacm: " in artefact.text or "CMA: unable" in artefact.text:
        for n, m in iter_matches(_RDMACM, artefact):
            result.lines_used += 1
            if m["assume"]:
                continue  # the version it goes on with, after "couldn't read ABI version."
            what = "rdmacm_abi_unreadable" if m["abi"] else "rdmacm_no_device_list"
            fb.add(VerbsWarning, n, what=what, message=(m["abi"] or m["list"]), with_unusable_device=unusable,
                   with_no_config_dir=no_config)
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (r"libibverbs: Warning: ", r"librdmacm: (?:Warning: )?couldn't read ABI version\.",
              r"(?:librdmacm: Fatal: |\bCMA: )unable to get RDMA device list")

"""Fact classes of the NCCL debug log parser (:mod:`stethoscope.facts.parsers.nccl_log`).

Every fact carries ``pid`` and ``local_device`` from NCCL's line prefix
``host:pid:tid [dev]`` (``dev`` is the CUDA device current in the printing thread); both are
None for the bare ``NCCL version ...`` line that NCCL prints without a prefix.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.nccl import (  # noqa: F401 - the fact classes live in facts/kinds
    NcclBootstrapFailure, NcclBootstrapInterface, NcclCollectiveMismatch, NcclEnv, NcclEnvIgnored, NcclErrorChain,
    NcclErrorReturn, NcclIbAsyncEvent, NcclLineFact, NcclNetDevice, NcclNetPlugin, NcclNetPluginError,
    NcclNetPluginLoadFailure, NcclNetSelected, NcclNoIbDevice, NcclPluginNotFound, NcclProxyFailure, NcclRank,
    NcclRdmaCompletionError, NcclSharedMemExceeds, NcclTransport, NcclVersion, NcclWarn,
)


# dlopen's ENOENT text: "libnccl-net.so: cannot open shared object file: No such file or directory"
_NO_FILE = re.compile(r"^(?P<file>\S+): cannot open shared object file: No such file or directory\b")
_ENOENT_TEXT = "cannot open shared object file: No such file or directory"
# the same text cut where a paste or a stored excerpt ended, after NCCL's errno 2 (ENOENT):
# NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open sh   (vllm-project/vllm#9046, the excerpt's last line)
_NO_FILE_CUT = re.compile(r"^(?P<file>\S+): (?P<rest>cannot open[^\n]{0,60}?)\s*$")


def plugin_load_reason(error: str, library: str | None = None, errno: int | None = None) -> str:
    """Why dlopen refused a plugin: ``absent`` (the plugin library itself is not there: NCCL's
    normal case), ``missing_dependency`` (the plugin is there, a library it needs is not), a
    missing symbol version (``version `FABRIC_1.7' not found``: built against a newer library than
    the host's), an ``undefined symbol``, a ``wrong ELF class``, or ``other``. ``errno``: the number
    NCCL printed before the loader's text ("Plugin load returned %d : %s", errno then dlerror());
    with 2 (ENOENT) a text cut inside dlopen's ENOENT sentence is that sentence."""
    m = _NO_FILE.match(error)
    if m is None and errno == 2 and (c := _NO_FILE_CUT.match(error)) and _ENOENT_TEXT.startswith(c["rest"]):
        m = c
    if m:
        name = m["file"].rsplit("/", 1)[-1]
        plugin = name.startswith("libnccl-net") or (library is not None and name == library.rsplit("/", 1)[-1])
        return "absent" if plugin else "missing_dependency"
    if "version `" in error and "' not found" in error:
        return "symbol_version"
    if "undefined symbol" in error:
        return "undefined_symbol"
    if "wrong ELF class" in error:
        return "wrong_elf_class"
    return "other"

"""NCCL's own debug log: ``NCCL_DEBUG=INFO`` (optionally ``NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,ENV``,
``NCCL_DEBUG_FILE=...``), on its own or interleaved with an application's output.

Sample content (``all_reduce_perf`` and a ``torchrun`` job on a 2 x H200 host)::

    vm:1552:1552 [0] NCCL INFO NCCL version 2.28.9+cuda13.0
    vm:1552:1564 [1] NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo
    vm:1552:1564 [1] NCCL INFO NET/IB : No device found.
    vm:1708:1708 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM
    [2026-11-29 18:30:18] vm:1633:1633 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found

A line is NCCL's when it holds NCCL's prefix ``host:pid:tid [dev] [file:line ]NCCL INFO|WARN|ATTN`` (NCCL 2.2's
``host:pid:tid [dev] INFO`` and ``host:pid:tid [dev] file:line WARN``, without ``NCCL``, too),
whatever comes before it: a timestamp (``NCCL_DEBUG_TIMESTAMP_LEVELS``), mpirun's
``[1,3]<stdout>:``, pdsh/srun's ``node1: ``, ANSI colour codes. The host on the line names the
node. The bare ``NCCL version 2.7.8+cuda11.1`` line NCCL prints without a prefix is read too.

Facts emitted (classes in :mod:`nccl_log_facts`): ``nccl_version``, ``nccl_env``,
``nccl_net_plugin``, ``nccl_net_plugin_load_failure``, ``nccl_plugin_not_found``, ``nccl_net_selected``, ``nccl_net_device``, ``nccl_no_ib_device``,
``nccl_bootstrap_interface``, ``nccl_bootstrap_failure``, ``nccl_rank``, ``nccl_transport``,
``nccl_warn`` (every WARN line, also those that give a more specific fact; an ATTN line of a known WARN form),
``nccl_rdma_completion_error``, ``nccl_error_return``; and through :mod:`nccl_log_setup`
``nccl_gdr_state``, ``nccl_p2p_unavailable``, ``nccl_shm_failure``, ``nccl_verbs_failure``,
``nccl_duplicate_gpu``, ``nccl_cuda_failure``. Repeated lines (each rank, each
communicator prints its own) are deduplicated per (node, pid, values) at their first line.
Every NCCL-prefixed line counts as used, also those that give no fact (topology dumps,
ring and tree lines).

Empty input, or text without NCCL lines, yields no facts: NCCL was not run with
``NCCL_DEBUG=INFO``, or its output went elsewhere; it says nothing about the network.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any, Callable

from stethoscope.facts.ids import nccl_busid
from stethoscope.facts.parsers import nccl_chains, nccl_log_messages, nccl_log_setup, nccl_log_socket, nccl_warn_kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.nccl_log_facts import (
    NcclBootstrapFailure,
    NcclBootstrapInterface,
    NcclEnv,
    NcclEnvIgnored,
    NcclErrorReturn,
    NcclNetDevice,
    NcclNetPlugin,
    NcclNetPluginLoadFailure,
    NcclNetSelected,
    NcclNoIbDevice,
    NcclPluginNotFound,
    NcclRank,
    NcclRdmaCompletionError,
    NcclTransport,
    NcclVersion,
    NcclWarn,
    plugin_load_reason,
)
from stethoscope.facts.parsers import nccl_log_scan
from stethoscope.facts.parsers.nccl_log_scan import (
    CHANNEL_AT, CHANNEL_PREFIX, COMPANION_STARTS, Runs, candidates, companion_maybe, maybe, shared_candidates,
)

KIND = "nccl_log"

__all__ = ["KIND", "detect", "parse", "NcclVersion", "NcclEnv", "NcclNetPlugin", "NcclNetPluginLoadFailure", "NcclNetSelected",
           "NcclNetDevice", "NcclNoIbDevice", "NcclBootstrapInterface", "NcclBootstrapFailure",
           "NcclRank", "NcclTransport", "NcclWarn", "NcclRdmaCompletionError", "NcclErrorReturn"]

# aws-ofi-nccl's functional tests (nccl_message_transfer, ring, cuda_check: the EFA checks of AWS's guides) run the plugin
# without NCCL and print its messages through their own logger (tests/test-common.h, v0.9-v1.21: printf("WARN: Function:
# %s Line: %d: ", ...), likewise INFO and TRACE), the plugin's "NET/OFI ..." message after it:
# WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument   (aws-ofi-nccl#22)
_OFI_TEST_PREFIX = r"(?:WARN|INFO|TRACE): Function: \w+ Line: \d+: NET/OFI "
_OFI_TEST_LINE = re.compile(r"^(?P<level>WARN|INFO|TRACE): Function: \w+ Line: \d+: (?P<msg>NET/OFI (?:[^\n]*[^ \t\r\n])?)[ \t\r]*$", re.M)

#: literal gates of detect(): a text holding none of these has no NCCL line
_DETECT_GATES = ("NCCL INFO", "NCCL WARN", "NCCL ATTN", "NCCL version", " WARN ", "] INFO ", "/dev/shm/nccl-", "Got completion from peer",
                 "Mismatched collective", "Unable to load libnccl-net", "NCCL_", "Function: ", *nccl_warn_kinds.BARE_GATES)
# detect(): one NCCL line anywhere in the text, in any of the forms _HEADER, _BARE_VERSION and
# _BARE_MESSAGE read.
# [1,3]<stdout>:test-nccl-efa-worker-0:23:75 [3] NCCL INFO Connected NVLS tree
# include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol
# Unable to load libnccl-net.so : libnccl-net.so: cannot open shared object file: No such file or directory   (2.3 INFO, nccl#162)
# NCCL version 2.7.8+cuda11.1          (the bare version line as _BARE_VERSION reads it: not NCCL RAS's
#   "NCCL version 2.26.2 compiled with CUDA 12.4", fixtures/artefacts/nccl_ras, which this reader reads nothing of)
# C4140-V100-1:24:201 [0] INFO Using internal Network Socket        (NCCL 2.2's INFO prefix, _OLD_INFO: horovod/horovod#288)
_DETECT = re.compile(
    r"NCCL (?:INFO|WARN|ATTN) |^NCCL version \d+\.\d+\.\d+[^+\s]*(?:\+cuda\d+(?:\.\d+)?)?[ \t\r\x0b\x0c\x1c-\x1f]*$"
    r"|\.(?:cc|cu|h|c|cpp):\d+ WARN |^[\w.\-]+:\d+:\d+ \[-?\d+\] INFO "
    r"|^[ \t]*(?:Error while (?:creating|attaching to) shared memory segment|Error: failed to extend) /dev/shm/nccl-"
    r"|^[ \t]*NET/IB\w* ?: ?Got completion from peer|^[ \t]*Mismatched collective detected|^Unable to load libnccl-net\S* : "
    r"|^NCCL_[A-Z0-9_]+ set (?:by environment )?to |^" + _OFI_TEST_PREFIX + "|^[ \t]*(?:" + nccl_warn_kinds.BARE + ")"
    r"|" + nccl_warn_kinds.QUOTED,
    re.M,
)

# Every form of NCCL's line prefix (src/debug.cc: "%s:%d:%d " host:pid:tid, then "[%d] %s:%d NCCL WARN ",
# 2.30+ "[%d] %s:%d (%s) NCCL WARN " with the function, 2.32's "NCCL ATTN " as WARN's, or "[%d] NCCL INFO "), whole or in part, with whatever came before it (a timestamp of
# NCCL_DEBUG_TIMESTAMP_FORMAT, a pdsh/srun "node1: "):
# [2026-11-29 18:30:18] vm:1633:1633 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found
# [2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available
# rdma-gpu-train-worker-0: rdma-gpu-train-worker-0:19487:21056 [3] NCCL INFO Using network IBext
# [3] enqueue.cc:215 NCCL WARN Cuda failure 'invalid device function'                       (device prefix only)
# [0] NCCL INFO misc/socket.cc:80 -> 6                                                      (nccl#1612)
# include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device         (source prefix only)
# NCCL INFO transport/nvls.cc:324 -> 1                                                      (nccl#976: no prefix)
# include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol   (NCCL <= 2.3, nccl#210)
# (it starts only where a token starts: tried inside a long run of word characters every optional
# group rescanned the run, quadratic on a 100 kB line; the local fuzz run, seed 6)
_HEADER = re.compile(
    r"(?<![\w./\-])(?:(?P<host>[\w.\-]+):(?P<pid>\d+):(?P<tid>\d+) )?(?:\[(?P<dev>-?\d+)\] )?"
    r"(?:(?:(?P<src>[\w./\-]+):(?P<srcline>\d+) (?:\(\w+\) )?)?NCCL (?P<level>INFO|WARN|ATTN)"
    r"|(?P<osrc>[\w./\-]+\.(?:cc|cu|h|c|cpp)):(?P<oline>\d+) (?P<olevel>WARN)) (?P<msg>(?:.*\S)?)\s*$"
)

# NCCL 2.2 and older printed INFO without "NCCL" (2.2 was released as binaries only: NVIDIA/nccl's history has no v2.2
# tag, and its first 2.x source, v2.3.5-5's src/include/debug.h, already prints "%s:%d:%d [%d] NCCL INFO "; 2.2's WARN
# "host:pid:tid [dev] file:line WARN msg" is _HEADER's older form): the whole prefix, host:pid:tid and the CUDA device,
# at the start of the line (a wrapper facts/lines.py takes off gone), then INFO; another program's "] INFO " (a
# logger's "[<time>] INFO <msg>") has no host:pid:tid before its bracket:
# C4140-V100-1:24:201 [0] INFO NET : Using interface ib0:192.168.11.1<0>          (horovod/horovod#288, NCCL 2.2.12)
_OLD_INFO = re.compile(r"^(?P<host>[\w.\-]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>-?\d+)\] INFO (?P<msg>(?:.*\S)?)\s*$")

# NCCL messages that people paste on their own, without NCCL's prefix, and that no other
# program prints: read as the WARN they are.
# Error while creating shared memory segment /dev/shm/nccl-pZafXL (size 7340384)          (video-diffusion-speedrun#2)
# NET/IB : Got completion from peer 192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err 129   (pytorch#81628)
# NET/IB : Unable to open device mlx5_0      (and the other self-explaining WARNs of nccl_warn_kinds.BARE)
# with the paste's own indentation before it, where the text around it has another (an e-mail reply that indents
# every line of a forwarded log but its first; facts/lines.py takes away only a margin every line shares):
#  Error while creating shared memory segment /dev/shm/nccl-jaXv5Z (size 5767520)          (xorbitsai/inference#1622)
_BARE_MESSAGE = re.compile(
    r"^[ \t]*(?P<msg>(?:Error while (?:creating|attaching to) shared memory segment|Error: failed to extend) /dev/shm/nccl-(?:[^\n]*\S)?"
    r"|NET/IB\w* ?: ?Got completion from peer (?:[^\n]*\S)?|Mismatched collective detected(?:[^\n]*\S)?"
    r"|(?:" + nccl_warn_kinds.BARE + r")(?:[^\n]*\S)?)\s*$"
)
# The same messages quoted in a sentence (nccl_warn_kinds.QUOTED): the line's one quoted span, the words around it off
#   - IB网络初始化失败:"Call to ibv_modify_qp failed with error No such device errno 19"     (blog.gitcode.com, a vLLM/NCCL summary)
QUOTED_BARE = re.compile(
    r'^[^"`\u201c\u201d\n]{0,300}["`\u201c](?P<msg>(?:' + nccl_warn_kinds.BARE + r')[^"`\u201c\u201d\n]{0,2000})["`\u201d]'
    r'[^"`\u201c\u201d\n]{0,300}$'  # (each run ends at the next quote: one way through, linear on a long line)
)
# NCCL 2.3's INFO when dlopen("libnccl-net.so") fails, pasted without its prefix (an issue title): read as the INFO it is
# Unable to load libnccl-net.so : libnccl-net.so: cannot open shared object file: No such file or directory   (nccl#162)
# NCCL's environment lines pasted on their own (src/misc/param.cc "%s set by environment to %s", "%s set to %s"):
# NCCL_P2P_LEVEL set by environment to LOC                                                  (nccl-tests#228)
_BARE_INFO = re.compile(
    r"^(?P<msg>Unable to load libnccl-net\S* : (?:[^\n]*\S)?|NCCL_[A-Z0-9_]+ set (?:by environment )?to (?:[^\n]*\S)?)\s*$")

# NCCL version 2.28.9+cuda13.0
_VERSION = re.compile(r"^NCCL version (?P<version>\d+\.\d+\.\d+)[^+\s]*(?:\+cuda(?P<cuda>\d+(?:\.\d+)?))?\s*$")
# The VERSION-level line has no host prefix; allow only colour residue, an mpirun tag or a
# pdsh "host: " before it (not "..., unhandled system error, NCCL version 2.10.3" in a traceback).
# [0m NCCL version 2.7.8+cuda11.1
_BARE_VERSION = re.compile(
    r"^(?:\x1b?\[[\d;]*m\s*|\[\d+,\d+\]<std(?:out|err)>:|[\w.\-]+: )?"
    r"NCCL version (?P<version>\d+\.\d+\.\d+)[^+\s]*(?:\+cuda(?P<cuda>\d+(?:\.\d+)?))?\s*$"
)

# NCCL_P2P_DISABLE set by environment to 1          NCCL_SHM_DISABLE set by environment to 1.
_ENV = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*) set by environment to(?: (?P<value>.*?))?\.?$")

# A setting NCCL could not read as a number, its default used (src/misc/param.cc ncclLoadParam: 2.4-2.31's INFO
# "Invalid value %s for %s, using default %lld." (%lu before 2.5), NCCL 2.32's ATTN of the same format):
# Invalid value abc for NCCL_IB_TIMEOUT, using default 20.                                  (CONSTRUCTED from the format)
_ENV_INVALID = re.compile(r"^Invalid value (?P<value>.*) for (?P<name>NCCL_[A-Z0-9_]+), using default (?P<default>-?\d+)\.?\s*$")

# NCCL_SOCKET_IFNAME set to ib0          TUNER/Plugin: NCCL_TUNER_PLUGIN set to nccl-tuner      (NCCL_X set to V, 2.12-2.28)
_ENV_SET_TO = re.compile(r"^(?:[\w/]+ ?: )?(?P<name>NCCL_[A-Z0-9_]+) set to(?: (?P<value>.*?))?\.?$")

# NET/Plugin: Could not find: libnccl-net.so        (2.23: "... libnccl-net.so. Using internal network plugin.")
_PLUGIN_NOT_FOUND = re.compile(r"^NET/Plugin ?: ?Could not find: ?(?P<name>\S+?)\.?(?:\s|$)")
# A plugin NCCL was told to load and found under none of the names it tried (src/plugin/plugin_open.cc, 2.26.2-1 on,
# INFO(subsys[type], "%s/Plugin: Could not find:%s%s%s", pluginNames[type], eNoEntNameList, ". ", fallback): the name
# list holds the variable's value as given when it names a library ("lib....so"), else "libnccl-<type>-<value>.so";
# 2.23-2.25 src/misc/profiler.cc "PROFILER/Plugin: Could not find:%s." and tuner.cc "TUNER/Plugin: Could not find:%s.
# Using internal tuner plugin."). The format filled in for NCCL_PROFILER_PLUGIN=myprof (2.28.3-1 on):
# PROFILER/Plugin: Could not find: libnccl-profiler-myprof.so
# and NCCL's own unasked try, no fault (2.26-2.27, a healthy vllm log):
# PROFILER/Plugin: Could not find: libnccl-profiler.so.
_ANY_PLUGIN_NOT_FOUND = re.compile(r"^(?P<type>NET|GIN|TUNER|PROFILER|ENV)/Plugin ?: ?Could not find:(?P<names>[^\n]*)$")
#: the library NCCL (or RCCL) tries when no variable names one: its absence is the normal case
_DEFAULT_PLUGIN_LIB = re.compile(r"^lib[nr]ccl-(?:net|gin|tuner|profiler|env)\.so$")
# NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
# NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: ... No plugin found (libnccl-net.so), ...
_PLUGIN_NO_PLUGIN = re.compile(r"^NET/Plugin ?: .*?No plugin found(?: \((?P<name>[^)\s]+)\))?")
# Why the dynamic loader refused the plugin library, in the three forms NCCL printed it:
# NET/Plugin : dlerror=/opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.7' not found (required by .../libnccl-net.so) No plugin found (libnccl-net.so), using internal implementation   (2.19-2.20, awsome-distributed-ai#292)
# NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory   (2.18, nccl-tests#188)
# NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so   (2.21, pytorch#146118)
# (2.21's other form, src/net.cc "NET/Plugin: Plugin load returned %d : %s when loading %s", has no " : " before "when")
# NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open sh   (the 2.21 line cut where a stored excerpt ended,
#   vllm-project/vllm#9046; NCCL prints errno first, 2 is ENOENT: the plugin library is absent, NCCL's normal case)
_PLUGIN_DLERROR = re.compile(
    r"^NET/Plugin ?: ?(?:dlerror=(?P<dl>.+?) No plugin found|Plugin load (?:\((?P<lib>[^)\s]+)\) )?returned (?P<errno>\d+) : (?P<ret>.+?))"
    r"(?:(?:(?: :)? when loading (?P<lib2>\S+))?$| \(|,|$)"
)
# NCCL 2.3 (src/init.cu of the 2.3 releases: INFO(NCCL_INIT, "Unable to load libnccl-net.so : %s", dlerror())), any dlopen failure:
# Unable to load libnccl-net.so : libnccl-net.so: cannot open shared object file: No such file or directory   (nccl#162)
_PLUGIN_UNABLE = re.compile(r"^Unable to load (?P<lib>libnccl-net\S*) : (?P<unable>.*\S|[^\S\n])\s*$")
# 2.22-2.28 print the loader's text alone when the plugin is there and does not load (a missing plugin is only
# named in "Could not find:"): src/net.cc 2.22-2.25 INFO "NET/Plugin: %s" (the dlerror), src/plugin/plugin_open.cc
# 2.26+ "%s/Plugin: %s: %s" (library, dlerror); NCCL's formats filled in with the dlerror of awsome-distributed-ai#292:
# NET/Plugin: libnccl-net.so: /opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.7' not found (required by /opt/aws-ofi-nccl/lib/libnccl-net.so)
_PLUGIN_OPEN_ERROR = re.compile(
    r"^NET/Plugin ?: ?(?:(?P<lib>\S+\.so[\w.]*): )?(?P<open>\S+: (?:cannot open shared object file|undefined symbol|version `"
    r"|wrong ELF class|invalid ELF header|file too short).*?)\s*$"
)
# NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)
_PLUGIN_LOADED = re.compile(r"^NET/Plugin ?: ?Loaded net plugin (?P<name>.+?)(?: \(v\d+\))?$")
# Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so    (nccl#988, #1320: NCCL 2.12, 2.18)
#   the RDMA/SHARP net plugin's own line once NCCL loaded it: NVIDIA/nccl-rdma-sharp-plugins
#   src/p2p_plugin.c pluginInit/pluginSetup, INFO(NCCL_INIT|NCCL_NET, "Plugin Path : %s", ...) of
#   its library's path (older NCCL releases print no "Loaded net plugin" line of their own)
_PLUGIN_PATH = re.compile(r"^Plugin Path ?: ?(?P<path>/\S+)\s*$")
# Initialized NET plugin Socket / Failed to initialize NET plugin IB / Assigned NET plugin Socket to comm
_PLUGIN_STATE = re.compile(r"^(?P<verb>Initialized|Failed to initialize|Assigned) NET plugin (?P<name>.+?)(?: to comm)?$")
_PLUGIN_EVENT = {"Initialized": "loaded", "Failed to initialize": "failed", "Assigned": "assigned"}

# Using network Socket
_USING_NETWORK = re.compile(r"^Using network (?P<network>.+)$")
# Using internal Network Socket      (NCCL 2.2-2.3: src/init.cu INFO(INIT,"Using internal Network %s", ncclNetName());
#   horovod/horovod#288: "C4140-V100-1:24:201 [0] INFO Using internal Network Socket", NCCL 2.2.12)
# Using external Network %s          (the same release's line for a net plugin: its name filled in)
_USING_OLD_NETWORK = re.compile(r"^Using (?:internal|external) Network (?P<network>\S(?:[^\n]*\S)?)\s*$")
# NET : Using interface ib0:192.168.11.1<0>   (NCCL 2.2-2.3's socket helper, src/include/socket.h findInterfaces()
#   INFO(INIT|NET,"NET : Using interface %s:%s", ...): the interface of its sockets, bootstrap's and the Socket
#   transport's; horovod/horovod#288, NCCL 2.2.12)
_OLD_SOCKET_IFACE = re.compile(r"^NET : Using interface (?P<entry>\S+)\s*$")
# An IP-over-InfiniBand interface: the kernel's "ib0" (ib_ipoib, and its P_Key children "ib0.8001") and systemd's
# predictable names for an InfiniBand port ("ib" + "p<bus>s<slot>..." / "s<slot>": udev's net_id prefix "ib"):
# NET : Using interface ib0:192.168.11.1<0>                     (horovod/horovod#288)
# Bootstrap : Using ibp12s0:10.149.0.32<0>                       (NVIDIA/nccl#952's log, NCCL 2.18)
# "ib" inside another name (vibr0, fib1, ibmveth) is none.
_IPOIB_IFACE = re.compile(r"^ib(?:\d+|[ps]\d\w*)(?:\.\w+)?$")


def _ipoib(iface: str) -> bool:
    """Whether an interface's name is an IPoIB interface's: one only an InfiniBand port has."""
    return bool(_IPOIB_IFACE.match(iface))

# NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>
# NET/Socket : Using [0]lo:127.0.0.1<0>
_NET_USING = re.compile(r"^NET/(?P<net>IB|Socket) ?: ?Using(?P<list>.*?)(?:; OOB \S+)?$")
_DEV_ENTRY = re.compile(r"\[(?P<index>\d+)\](?P<dev>[^\s\[;]+)")

# Bootstrap: Using eth0:192.0.2.2<0>
# Bootstrap : Using [0]ens5:172.31.0.137<0> [1]veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783<0>
_BOOTSTRAP_USING = re.compile(r"^Bootstrap ?: ?Using (?P<list>.+)$")
_IFADDR_V4 = re.compile(r"^(?P<iface>.+):(?P<addr>\d{1,3}(?:\.\d{1,3}){3})(?:<\d+>)?$")

# NET/IB : Got completion from peer 10.1.1.2<45678> with error 12, opcode 0, len 0, vendor err 129 (Send)
# NET/IB : Got completion from peer 172.36.143.59<44206> with status=12 opcode=129 len=65536 vendor err 129 (Recv) localGid ...
# NET/IB: Got completion from peer 10.1.1.2<45678> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) ... hca mlx5_0
# a line cut after its status, or retold without "with" (an issue title: "NET/IB Got completion error 12"):
# the status is what the line says; the opcode may be gone
_COMPLETION = re.compile(
    r"NET/IB\w*(?:/GIN)?(?: ?: ?| )Got completion (?:from peer (?:(?!with )(?P<peer>\S+) )?)?(?:with )?"
    r"(?:error (?P<err>\d+)|status=(?:(?P<st_text>[A-Z_]+)\()?(?P<st>\d+)\)?)"
    r"(?:,? opcode[= ](?:(?P<op_text>[A-Z_]+)\()?(?P<op>\d+)\)?)?"
)
# NCCL_IB_RESILIENCY's handler (v2.29.7-1 .. v2.30.7-1 transport/net_ib/p2p_resiliency.cc ncclIbResiliencyHandleCompletionError,
# at INFO: NCCL then marks the device failed and replays on the others, or says the error is fatal, in WARN lines of their own):
#   INFO(NCCL_NET, "NET/IB: %s: Got completion with error (devIndex=%d, wc->status=(%s)%d, wc->opcode=(%s)%d, wc->wr_id=%ld, "
#        "wc->qp_num=%u, wc->byte_len=%d)", __func__, devIndex, ibvWcStatusStr(wc->status), wc->status, ibvWcOpcodeStr(...), ...)
# NET/IB: ncclIbResiliencyHandleCompletionError: Got completion with error (devIndex=0, wc->status=(IBV_WC_RETRY_EXC_ERR)12, wc->opcode=(IBV_WC_RDMA_WRITE)1, wc->wr_id=17, wc->qp_num=4711, wc->byte_len=0)
#   (CONSTRUCTED from the format, misc/ibvwrap.cc's status and opcode names; no public paste yet: bench/rN5's INFO audit read
#    it as a parse problem)
_COMPLETION_RESILIENCY = re.compile(
    r"NET/IB\w*: (?:\w+: )?Got completion with error \(devIndex=\d+, wc->status=\((?P<st_text>\w+)\)(?P<st>\d+), "
    r"wc->opcode=\((?P<op_text>\w+)\)(?P<op>\d+)"
)
_COMPLETION_VENDOR = re.compile(r"vendor[ _]err[= ](?P<v>\d+)")
_COMPLETION_REQ = re.compile(r"\((?P<req>Send|Recv|Flush|IPut|Unused)\)|req_type=(?P<req2>\w+)")
_COMPLETION_HCA = re.compile(r" hca (?P<hca>\S+)")
# localGid ::ffff:10.1.1.1 remoteGids::ffff:10.1.1.2       localGid ::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221
_COMPLETION_GID = re.compile(r"localGid ?(?P<local>[0-9a-fA-F:.]*) remoteGids? ?(?P<remote>[0-9a-fA-F:.]*)")

# Ray's driver prints a line that many workers printed once, with how many more did (ray/_private/ray_logging.py's
# log deduplication, on by default since Ray 2.4; the first such line carries Ray's note after it):
# (RayTrainWorker pid=954, ip=10.67.132.202) ini-worker-ray-worker-p5:954:3133 [6] nccl_net_ofi_create_plugin:1067 NCCL WARN NET/OFI aws-ofi-nccl initialization failed [repeated 15x across cluster]
#   (awsome-distributed-ai#386)
# (the first one of a run also carries Ray's note after it, "(Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 ...)":
#  that line is read as it is)
# (the blanks before it are stripped apart: a leading "\s*" was tried at every blank of a long run of them,
#  quadratic: 1.6 s on a 30,000-character line, bench/redos.py)
_RAY_REPEATED = re.compile(r"\[repeated \d+x across cluster\]$")

# A terminal copy that kept each row padded with blanks to the terminal's width and lost the newlines
# between them puts the next records on the message's line (deepseek-ai/DeepEP#106, rows of 158 columns):
# ...ib_plugin.c:1075 NCCL WARN NET/IB : Got completion from peer 172.21.17.89<38536> with error 5, opcode 48, len 32710, vendor err 249<150 blanks>VM-17-82-centos:11978:12642 [0] NCCL INFO transport/net.cc:1298 -> 6<blanks>...
# NCCL's messages hold no run of 8 blanks (debug.cc prints one message a line; the tuning tables' INFO
# lines that align columns give no fact): the message ends where such a run starts
_ROW_PADDING = " " * 8

# init.cc:126 -> 5          group.cc:75 -> 6 [Async thread]          group.cc:65 -> 2 [Async thread]   (nccl-tests#166)
# the " (%s)" strerror suffix of SYSCHECK's return line: no sample from an even-numbered thread yet
_ERROR_RETURN = re.compile(
    r"^(?P<file>[\w./\-]+):(?P<line>\d+) -> (?P<code>\d+)(?: \[(?P<thread>[^\]]+)\])?(?: \(.*\))?$"
)

# ncclCommInitRankConfig comm 0x55b4d1f13be0 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 70 commId 0xd0e572375164a3b6 - Init START
# comm 0x7f4b28006640 rank 14 nranks 16 cudaDev 6 busId b1000 - Init COMPLETE
# comm 0x8dd01c0 rank 2 nranks 16 cudaDev 2 busId 48000 - Destroy COMPLETE         (nccl#1412: a rank that also completed init)
# ncclCommSplit comm 0x5601dc4ed8b0 rank 2 nranks 16 cudaDev 2 nvmlDev 2 busId 41000 parent 0x5601b34852c0 color 1197013201 key 2 commId 0x44d8628a425864f9 - Init COMPLETE
#   (sgl-project/sglang#3836; init.cc "... busId %lx parent %p color %d key %d commId 0x%llx - Init START", and
#    2.2x's "parent %p splitCount %d color %d key %d- Init START" without the commId)
# ncclCommSplit comm 0x55b4d1f13be0 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 70 parent 0x5601b34852c0 childCount 1 color 7 key 3- Init START
#   (CONSTRUCTED from v2.29.2-1 .. v2.30.7-1 src/init.cc ncclCommInitRankFunc: INFO(NCCL_INIT, "%s comm %p rank %d nranks %d
#    cudaDev %d nvmlDev %d busId %lx parent %p childCount %d color %d key %d- Init START", ...) and its "... key %d - Init
#    COMPLETE": 2.29 renamed splitCount childCount; every split, shrink or grow child of 2.29+ prints it; bench/rN5's INFO
#    audit: read as a parse problem, an unexplained error on a healthy log)
# comm 0x7efe60002250 rank 15 nranks 64 cudaDev 0 nvmlDev 0 - Init COMPLETE
#   (NVIDIA/nccl#226, NCCL 2.4: init.cc "comm %p rank %d nranks %d cudaDev %d nvmlDev %d - Init COMPLETE", no busId yet)
_INIT = re.compile(
    r"(?:\w+ )?comm (?P<comm>0x[0-9a-fA-F]+|\(nil\)) rank (?P<rank>\d+) nranks (?P<nranks>\d+) "
    r"cudaDev (?P<cuda>-?\d+)(?: nvmlDev (?P<nvml>-?\d+))?(?: busId (?P<bus>(?:0x)?[0-9a-fA-F]+))?"
    r"(?: parent \S+(?: (?:splitCount|childCount) \d+)? color -?\d+ key -?\d+)?(?: commId (?P<commid>0x[0-9a-fA-F]+))?"
    r" ?- (?P<what>Init|Destroy) (?P<phase>START|COMPLETE)$"
)

# NCCL 2.22+ prints, right after a communicator's Init COMPLETE and in the same function (src/init.cc
# ncclCommInitRankFunc), how long its init took, under NCCL_INIT|NCCL_PROFILE:
#   2.22:  INFO(NCCL_INIT|NCCL_PROFILE,"Init timings: rank %d nranks %d total %.2f (kernels %.2f, bootstrap %.2f, ...)", ...)
#   2.23+: "Init timings - %s: rank %d nranks %d total %.2f (kernels %.2f, alloc %.2f, bootstrap %.2f, allgathers %.2f, ..."
#          (%s: job->funcName, ncclCommInitRank / ncclCommInitRankConfig / ncclCommSplit ...)
# swat1-04:2017630:2017671 [2] NCCL INFO Init timings: rank 2 nranks 16 total 1.08 (kernels 0.51, bootstrap 0.22, allgathers 0.01, topo 0.28, graphs 0.04, connections 0.02, rest 0.01)      (NVIDIA/nccl#1412, 2.22)
# deepseek-r1-671b-88957849-q6slh-head-fwl2w:734:734 [0] NCCL INFO Init timings - ncclCommInitRank: rank 0 nranks 16 total 3.08 (kernels 0.36, alloc 0.89, ...)      (vllm-project/aibrix#758, 2.25.1)
# It names no communicator: it tells that the process's rank of that size finished an init (where the
# paste lost the Init COMPLETE line, or begins after it), so it is read as that completion.
_INIT_TIMINGS = re.compile(r"Init timings(?: - \w+)?: rank (?P<rank>\d+) nranks (?P<nranks>\d+) total \d")

# Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM
# Channel 00/0 : 0[0] -> 1[1] [receive] via NET/Socket/0
# Channel 00 : 0[1b000] -> 1[1c000] via P2P/IPC
# Ring 00 : 0 -> 1 [send] via NET/Socket/0                  (2.4)
_CHANNEL = re.compile(
    r"^(?:Channel|Ring) (?P<ch>\d+)(?:/\d+)? : (?P<src>\d+)(?:\[[0-9a-fA-Fx]+\])? -> (?P<dst>\d+)(?:\[[0-9a-fA-Fx]+\])?"
    r"(?: \[(?P<dir>send|receive)\])? via (?P<transport>.+)$"
)


def detect(text: str) -> bool:
    if "NCCL INFO " in text or "NCCL WARN " in text or "NCCL ATTN " in text:  # _DETECT's first branch, found by substring search
        return True  # (its search tries the anchored branches at every character of the lines before: 36 us a train log)
    if not any(g in text for g in _DETECT_GATES):  # cheap gate: _DETECT needs one of them
        return False
    return _DETECT.search(text) is not None


def _family(transport: str) -> str:
    """``P2P/CUMEM`` -> P2P, ``SHM/direct/direct`` and 2.7's ``direct shared memory`` -> SHM,
    ``NET/IB/0/GDRDMA`` -> NET; anything else: its first word, upper-cased."""
    if "shared memory" in transport:
        return "SHM"
    return re.split(r"[/ ]", transport, maxsplit=1)[0].upper()


def _method(transport: str) -> str | None:
    """The second part of a channel's transport: ``P2P/CUMEM/read`` -> CUMEM, ``P2P/direct pointer`` -> direct
    pointer, ``P2P/indirect/1[1]`` -> indirect, ``NET/IBext_v8/0/GDRDMA`` -> IBext_v8, ``SHM/CE/direct`` -> CE;
    2.7's ``direct shared memory``: None."""
    parts = transport.split("/")
    return (parts[1].strip() or None) if len(parts) > 1 else None


# Using network IB / IBext / IBext_v8 (nccl-rdma-sharp-plugins' names, by plugin API version) / Socket
_IB_NETWORK = re.compile(r"^IB(?:ext)?(?:_v\d+)?$")
_API_SUFFIX = re.compile(r"_v\d+$")


def _network_family(network: str) -> tuple[str, bool]:
    """(family, external) of a ``Using network`` name: IB for NCCL's IB and the IBext plugins, Socket,
    else the plugin's name without its API version; external unless NCCL's own IB or Socket."""
    if _IB_NETWORK.match(network):
        return "IB", network != "IB"
    if network == "Socket":
        return "Socket", False
    return _API_SUFFIX.sub("", network), True


def _iface_address(entry: str) -> tuple[str, str | None]:
    """``eth0:192.0.2.2<0>`` -> (eth0, 192.0.2.2); ``veth0:fe80::1%veth0<0>`` -> (veth0, fe80::1%veth0)."""
    m = _IFADDR_V4.match(entry)
    if m:
        return m["iface"], m["addr"]
    iface, _, addr = entry.partition(":")
    addr = addr.split("<", 1)[0]
    if not addr or addr.isdecimal():  # "Bootstrap: Using mlx5_0:1": a port, no address
        return iface, None
    return iface, addr


def line_counter(text: str) -> Callable[[int], int]:
    """:meth:`Artefact.line_of` for one reader's own scan: the 1-based line of an offset, counted on
    from its last answer (one C count); an earlier offset is counted from the text's start. The
    NCCL readers count their own lines so that each leaves the artefact's counter at the text's
    start for the next: asked for an offset before its last answer, Artefact.line_of first lists
    every line start (0.3 ms on a 2,000-line log), which every second reader of a file paid."""
    last = [0, 1]
    count = text.count

    def line_of(offset: int) -> int:
        off, line = last
        if offset < off:
            off, line = 0, 1
        line += count("\n", off, offset)
        last[0], last[1] = offset, line
        return line
    return line_of


class _Quotes:
    """A line's text by its number, from the (line, offset) pairs the reader met (each run's first
    line, each line it counted): what ``Artefact.lines`` gives for it, without splitting the whole
    text into its lines (a 175 kB log of 2,000 lines, of which a reading quotes ~30: 0.1 ms)."""

    #: the most newlines walked from a known line to the one asked (then None: the builder's own way)
    WALK = 64

    def __init__(self, text: str):
        self.text = text
        self.nos: list[int] = []
        self.offsets: list[int] = []

    def mark(self, no: int, offset: int) -> None:
        """Line ``no`` starts at ``offset`` (kept when it is past the last line marked)."""
        if not self.nos or no > self.nos[-1]:
            self.nos.append(no)
            self.offsets.append(offset)

    def counter(self) -> Callable[[int], int]:
        """:meth:`Artefact.line_of` for the reader's own scan, counted on from the last line marked
        before the offset (one C count; the readers' counters and the runs' lines mark theirs, so
        the newlines of the text are counted about once); an answer at a line's start is marked."""
        text, nos, offsets, mark = self.text, self.nos, self.offsets, self.mark
        count = text.count

        def line_of(offset: int) -> int:
            if nos and offset >= offsets[-1]:
                no = nos[-1] + count("\n", offsets[-1], offset)
            else:
                i = bisect_right(offsets, offset) - 1
                no = nos[i] + count("\n", offsets[i], offset) if i >= 0 else 1 + count("\n", 0, offset)
            if not offset or text[offset - 1] == "\n":
                mark(no, offset)
            return no
        return line_of

    def __call__(self, no: int) -> str | None:
        i = bisect_right(self.nos, no) - 1
        if i < 0 or no - self.nos[i] > self.WALK:
            return None
        text, off = self.text, self.offsets[i]
        find = text.find
        for _ in range(no - self.nos[i]):
            off = find("\n", off) + 1
            if not off:
                return None
        end = find("\n", off)
        line = text[off:] if end == -1 else text[off:end]
        return line[:-1] if line[-1:] == "\r" else line  # as Artefact.lines gives it


class _CountingBuilder(FactBuilder):
    """A FactBuilder that counts its ``add`` calls (a fact built, folded or capped each), and quotes a
    fact's line from ``quotes`` where the artefact has neither its lines split nor a raw text (the
    builder would split the text into lines for it, as it quotes ``Artefact.lines``)."""

    adds = 0
    quotes: _Quotes | None = None

    def add(self, cls: type, line: int, node: str | None = None, text: str | None = None, /, **fields: Any) -> Any:
        if "node" in fields:  # given by name (FactBuilder.add: why no parameter may be named)
            node = fields.pop("node")
        if "text" in fields:
            text = fields.pop("text")
        self.adds += 1
        if text is None and self.quotes is not None and self.artefact._lines is None and self.artefact.raw_text is None:
            text = self.quotes(line)
        return super().add(cls, line, node, text, **fields)


class NcclLogState:
    """State of one parse: dedupe keys, and rank/transport facts completed at the end."""

    def __init__(self, artefact: Artefact, result: ParseResult):
        self.artefact = artefact
        self.quotes = _Quotes(artefact.text)
        self.line_of = self.quotes.counter()
        self.b = _CountingBuilder(artefact, result)
        self.b.quotes = self.quotes
        #: once()'s adds, and the lines whose reading depends on the order of lines (a
        #: communicator's abort): with ``b.adds`` and the errors, what tells a repeatable line
        self.once_adds = self.ordered = 0
        #: the calls of _init and pair (a line's reading that changed a rank or a transport)
        self.touched = 0
        #: once()'s calls while a line's reading is recorded (_read_runs: its recipe), else None
        self.recording: list[tuple[Any, ...]] | None = None
        self.seen: set[tuple[Any, ...]] = set()
        self.ranks: dict[tuple[Any, ...], tuple[int, str, dict[str, Any]]] = {}
        self.transports: dict[tuple[Any, ...], tuple[int, str, dict[str, Any], set[int]]] = {}
        self.chains = nccl_chains.Chains(self.b)
        #: each process's last failed /dev/shm call that gave a reason: (errno name, a reason not ENOSPC's)
        #: (nccl_log_setup._shm: NCCL 2.4-2.11's reasonless segment line is that call's consequence)
        self.shm_calls: dict[tuple[str, int | None], tuple[str | None, bool]] = {}
        #: whether a line of NCCL 2.2's INFO prefix (_OLD_INFO) was read: its INFO lines without "NCCL INFO"
        self.old_info = False
        #: the "Init timings" lines read, per (node, pid, rank, nranks): each one a finished init (_INIT_TIMINGS)
        self.timed: dict[tuple[str, int | None, int, int], int] = {}

    def once(self, cls: type, line: int, node: str, key: tuple[Any, ...], /, **fields: Any) -> None:
        # given by place only: no field is compared with a parameter's name (FactBuilder.add says why)
        if self.recording is not None:
            self.recording.append((cls, line, node, key, fields))
        full = (cls, node, *key)
        if full not in self.seen:
            self.seen.add(full)
            self.once_adds += 1
            self.b.add(cls, line, node=node, **fields)

    def line(self, no: int, node: str, pid: int | None, dev: int | None, level: str, src: str | None,
             srcline: str | None, msg: str) -> None:
        add, once, ctx = self.b.add, self.once, {"pid": pid, "local_device": dev}
        if msg[-1:] == "]" and msg.endswith("x across cluster]"):  # Ray's log deduplication: the message is what comes before it
            at = msg.rfind("[repeated ")  # the note's only possible start: what follows it holds no "[repeated "
            if at != -1 and _RAY_REPEATED.match(msg, at):
                msg = msg[:at].rstrip()  # the blanks before it ("\s": what str.isspace takes, as rstrip strips)
        if _ROW_PADDING in msg:  # a terminal copy's rows padded with blanks and joined: the message ends at the padding
            msg = msg.split(_ROW_PADDING, 1)[0].rstrip()
        if " -> " in msg and (m := _ERROR_RETURN.match(msg)):
            add(NcclErrorReturn, no, node=node, source_file=m["file"], source_line=int(m["line"]),
                code=int(m["code"]), thread=m["thread"], **ctx)
            return self.chains.frame(no, node, pid, m["file"], int(m["line"]), int(m["code"]), m["thread"])
        self.chains.other(node, pid)
        if level == "ATTN":
            # NCCL 2.32's ATTN level: "noteworthy, not an error" (src/include/debug.h NCCL_LOG_ATTN, between WARN and
            # INFO; src/debug.cc prints it with WARN's prefix and leaves ncclLastError alone; NCCL_DEBUG=ATTN or INFO
            # shows it). A message some release printed as a WARN (the profiler's "Profiler init failed with error
            # '%d': %s. Continue without profiler.", src/plugin/profiler.cc) is read as that WARN form, its finding
            # as before; any other ("Invalid value %s for %s, using default %lld.", "Found %d local devices, but GIN
            # supports at most %d connections. ...", "TLS handshake from %s failed, discarding peer connection") as
            # the information it is: read, counted, never an unexplained error
            level = "WARN" if nccl_warn_kinds.kind(msg, src) is not None else "INFO"
            if level == "INFO" and not maybe(msg):
                return None
        if level == "WARN":
            if nccl_log_messages.async_event_cut(self, no, msg):  # the last line cut inside an HCA event's name
                return None
            warn_kind = nccl_warn_kinds.kind(msg, src)
            warn = add(NcclWarn, no, node=node, source_file=src, source_line=int(srcline) if srcline else None,
                       message=msg, message_kind=warn_kind, **ctx)
            self.chains.warn(no, node, pid, warn)
            if warn_kind == "ras_client_socket_failed":  # RAS's own client port, not a bootstrap socket (nccl_warn_kinds)
                return None
            if nccl_log_messages.handle(self, no, node, msg, ctx, src):  # mismatch, async events, plugins, shared memory
                return None
        elif msg.startswith(nccl_warn_kinds.INFO_GATE) and (info_kind := nccl_warn_kinds.info_kind(msg)):
            # an INFO that says what an older release's WARN said (2.27.3-2.30.4's "didn't receive a valid magic"), or what a
            # WARN kind reports (NCCL_IB_RESILIENCY's recovery at INFO): the nccl_warn of that kind, as the WARN gave
            add(NcclWarn, no, node=node, source_file=src, source_line=int(srcline) if srcline else None,
                message=msg, message_kind=info_kind, **ctx)
            return None
        if level == "INFO" and msg.startswith(nccl_chains.SOCKET_PCI_PATH):
            # the socket transport's PCI path of an interface with no PCI device (a virtual NIC): the frame after it
            # is the probe whose failure NCCL 2.4-2.5 ignore (nccl_chains.Chains.pci_path_probe)
            return self.chains.pci_path_probe(no, node, pid)
        if nccl_log_setup.handle(self, no, node, msg, src, ctx):  # GDR, P2P, SHM, verbs, duplicate GPU, CUDA
            return None
        if msg.startswith(("Channel ", "Ring ")) and " via " in msg:
            m = _CHANNEL.match(msg)
            if not m:
                return self.b.error(no, f"NCCL channel line without ranks or transport: {msg!r}")
            return self.pair(_parts(m), node, pid, dev, lambda: no)
        if msg.endswith(("Abort START", "Abort COMPLETE")) and "comm " in msg:
            self.ordered += 1
            return self.chains.abort(node, pid, msg.endswith("START"))
        if msg.endswith(("Init START", "Init COMPLETE", "Destroy COMPLETE")) and "comm " in msg:
            return self._init(no, node, msg, ctx)
        if msg.startswith("Init timings") and (m := _INIT_TIMINGS.match(msg)):
            self.touched += 1
            key = (node, pid, int(m["rank"]), int(m["nranks"]))
            self.timed[key] = self.timed.get(key, 0) + 1
            return None
        if "set by environment to" in msg:
            m = _ENV.match(msg)
            if not m:
                return self.b.error(no, f"NCCL environment line without a variable name: {msg!r}")
            value = m["value"] or ""
            return once(NcclEnv, no, node, (pid, m["name"], value), name=m["name"], value=value, **ctx)
        if msg.startswith("Invalid value ") and (m := _ENV_INVALID.match(msg)):
            return once(NcclEnvIgnored, no, node, (pid, m["name"], m["value"]), name=m["name"], value=m["value"],
                        default=m["default"], **ctx)
        if " set to " in msg and (m := _ENV_SET_TO.match(msg)):
            value = m["value"] or ""
            return once(NcclEnv, no, node, (pid, m["name"], value), name=m["name"], value=value, **ctx)
        if msg.startswith("NCCL version"):
            m = _VERSION.match(msg)
            if not m:
                return self.b.error(no, f"NCCL version line without a version number: {msg!r}")
            return once(NcclVersion, no, node, (pid, m["version"]), version=m["version"], cuda=m["cuda"], **ctx)
        if msg.startswith("Using network ") or (msg.startswith(("Using internal N", "Using external N"))
                                                and _USING_OLD_NETWORK.match(msg)):
            net = (_USING_NETWORK.match(msg) or _USING_OLD_NETWORK.match(msg))["network"]  # type: ignore[index]
            family, external = _network_family(net)
            return once(NcclNetSelected, no, node, (pid, net), network=net, family=family, external=external, **ctx)
        if msg.startswith("NET : Using interface") and (m := _OLD_SOCKET_IFACE.match(msg)):
            iface, addr = _iface_address(m["entry"])
            return once(NcclBootstrapInterface, no, node, (pid, iface, addr), interface=iface, address=addr,
                        loopback=nccl_log_socket.loopback_address(addr), ipoib=_ipoib(iface), **ctx)
        # NET/IB : No device found.          Failed to open libibverbs.so[.1]   (no verbs library: no IB device either;
        #   NCCL 2.4-2.7 printed the second as a WARN, 2.23 at INFO: src/misc/ibvwrap.cc)
        if msg.startswith(("NET/IB : No device found", "Failed to open libibverbs.so")):
            return once(NcclNoIbDevice, no, node, (pid,), **ctx)
        if msg.startswith(("NET/IB", "NET/Socket")) and "Using" in msg:
            return self._net_devices(no, node, msg, ctx)
        if msg.startswith("Bootstrap") and "Using" in msg:
            m = _BOOTSTRAP_USING.match(msg)
            for entry in (m["list"].split() if m else ()):
                iface, addr = _iface_address(re.sub(r"^\[\d+\]", "", entry))
                once(NcclBootstrapInterface, no, node, (pid, iface, addr), interface=iface, address=addr,
                     loopback=nccl_log_socket.loopback_address(addr), ipoib=_ipoib(iface), **ctx)
            return None
        if "plugin" in msg.lower() or msg.startswith("Unable to load lib"):
            return self._plugin(no, node, msg, ctx)
        if "Got completion" in msg:
            return self._completion(no, node, msg, ctx)
        if ("onnect" in msg or "interface" in msg or "no device found" in msg or "exceeded" in msg or "Socket creation" in msg
                or "Call to recv" in msg or "Call to send to" in msg or "ccept failed" in msg or "Call to bind" in msg):
            nccl_log_socket.handle(self, no, node, msg, level, ctx)  # interfaces, connects, retries, peers
        return None

    def channel(self, offset: int, node: str, pid: int, dev: int, msg: str) -> bool:
        """A prefixed INFO ``Channel``/``Ring`` line (most of a log's wanted lines) without the
        checks of :meth:`line` it cannot pass; its line number counted only for a new pair.
        False: not a channel line of _CHANNEL_FAST's shape (then :meth:`line` reads it)."""
        parts = _channel_parts(msg)
        if parts is None:
            return False
        self.chains.other(node, pid)
        self.pair(parts, node, pid, dev, lambda: self.line_of(offset))
        return True

    def pair(self, parts: tuple[int, int, int, str, str | None], node: str, pid: int | None, dev: int | None,
             line_at: Callable[[], int]) -> None:
        """A channel line's (rank, peer, transport, direction) pair, its channel collected;
        ``parts``: (channel, rank, peer, transport, direction); ``line_at()`` gives its line
        number, asked only for a pair not seen before."""
        self.touched += 1
        ch, rank, peer, transport, direction = parts
        key = (node, pid, rank, peer, transport, direction)
        got = self.transports.get(key)
        if got is None:
            family = _family(transport)
            # gpu32: ... 0[7000] -> 8[7000] [send] via NET/IB/1/GDRDMA  /  gpu37: ... [receive] via NET/IB/0
            fields = dict(rank=rank, peer_rank=peer, transport=transport, family=family,
                          method=_method(transport), direction=direction, pid=pid, local_device=dev,
                          gdr=("/GDRDMA" in transport) if family == "NET" else None,
                          crosses="network" if family == "NET" else None)
            got = self.transports[key] = (line_at(), node, fields, set())
        got[3].add(ch)

    def _init(self, no: int, node: str, msg: str, ctx: dict[str, Any], m: re.Match[str] | None = None) -> None:
        """A communicator's Init/Destroy line: its rank, completed or not (``m``: _INIT's match of
        ``msg`` where the caller has it)."""
        self.touched += 1
        m = m or _INIT.search(msg)
        try:
            bus = nccl_busid(m["bus"]) if m and m["bus"] else None
        except ValueError:
            m = None  # a busId that is no PCI address
        if not m or (bus is None and m["nvml"] is None):  # NCCL 2.4 printed nvmlDev and no busId
            return self.b.error(no, f"NCCL Init line with unreadable comm/rank/nranks/cudaDev/busId: {msg!r}")
        key = (node, ctx["pid"], m["comm"], int(m["rank"]))
        if key not in self.ranks:
            fields = dict(rank=int(m["rank"]), nranks=int(m["nranks"]), cuda_dev=int(m["cuda"]),
                          nvml_dev=int(m["nvml"]) if m["nvml"] else None, bus_id=bus, comm=m["comm"],
                          comm_id=m["commid"], init_complete=False, **ctx)
            self.ranks[key] = (no, node, fields)
        if m["phase"] == "COMPLETE":  # Init COMPLETE, or Destroy COMPLETE of a communicator that was in use
            self.ranks[key][2]["init_complete"] = True
        return None

    def _timed_complete(self) -> None:
        """Each "Init timings" line a finished init of its process's rank of that size: the ranks
        of that (node, pid, rank, nranks) not read complete, in the order they started, take the
        timings lines their completed ones (which print their own) leave over."""
        if not self.timed:
            return
        left = dict(self.timed)
        for key, (_no, node, fields) in self.ranks.items():
            if fields["init_complete"] and (k := (node, key[1], fields["rank"], fields["nranks"])) in left:
                left[k] -= 1
        for key, (_no, node, fields) in self.ranks.items():
            if not fields["init_complete"] and left.get(k := (node, key[1], fields["rank"], fields["nranks"]), 0) > 0:
                fields["init_complete"] = True
                left[k] -= 1

    def _net_devices(self, no: int, node: str, msg: str, ctx: dict[str, Any]) -> None:
        m = _NET_USING.match(msg)
        if not m:
            return None  # "NET/Socket : Using 2 threads and 8 sockets per thread" etc.
        net = m["net"]
        for d in _DEV_ENTRY.finditer(m["list"]):
            idx, raw = int(d["index"]), d["dev"]
            if net == "IB":
                device, _, link = raw.partition("/")
                address, link_layer = None, (link.split("/", 1)[0] or None)
            else:
                device, address = _iface_address(raw)
                link_layer = None
            self.once(NcclNetDevice, no, node, (ctx["pid"], net, idx, device, address), network=net,
                      index=idx, device=device, address=address, link_layer=link_layer,
                      ipoib=net == "Socket" and _ipoib(device), **ctx)
        return None

    def _plugin(self, no: int, node: str, msg: str, ctx: dict[str, Any]) -> None:
        event = name = None
        if msg.startswith(("NET/Plugin", "Unable to load")):  # the loader's refusal, in any version's words
            self._plugin_dlerror(no, node, msg, ctx)
        if m := _PLUGIN_NOT_FOUND.match(msg):
            event, name = "not_found", m["name"]
        elif m := _PLUGIN_NO_PLUGIN.match(msg):
            event, name = "not_found", m["name"]
        elif m := _PLUGIN_LOADED.match(msg) or _PLUGIN_PATH.match(msg):
            event, name = "loaded", m.groupdict().get("name") or m["path"]
        elif m := _PLUGIN_STATE.match(msg):
            event, name = _PLUGIN_EVENT[m["verb"]], m["name"]
        if event:
            self.once(NcclNetPlugin, no, node, (ctx["pid"], event, name), event=event, name=name, **ctx)
        if "Could not find:" in msg and (m := _ANY_PLUGIN_NOT_FOUND.match(msg)):
            # the list ends at the fallback sentence (". Using internal tuner plugin.") or a last "."
            names = [n.removesuffix(".") for n in m["names"].split(". ", 1)[0].split()]
            # a library's name holds ".so" (NCCL builds "libnccl-<type>-<value>.so" or tries a "lib....so" value or path
            # as given): a word after the list that is none (a terminal's or relay's trailing mark) names no plugin
            asked = [n for n in names if ".so" in n and not _DEFAULT_PLUGIN_LIB.match(n)]
            if asked:
                self.once(NcclPluginNotFound, no, node, (ctx["pid"], m["type"], *asked), plugin=m["type"],
                          libraries=" ".join(asked), **ctx)
        return None

    def _plugin_dlerror(self, no: int, node: str, msg: str, ctx: dict[str, Any]) -> None:
        """The loader's refusal: a plugin that is absent is NCCL's normal case (no fact); one that is
        there and cannot be loaded (a missing symbol or symbol version, a wrong ELF class) is a
        ``nccl_net_plugin_load_failure``."""
        m = _PLUGIN_DLERROR.match(msg) or _PLUGIN_UNABLE.match(msg) or _PLUGIN_OPEN_ERROR.match(msg)
        if m is None:
            return
        groups = m.groupdict()
        error = next(groups[g] for g in ("dl", "ret", "unable", "open") if groups.get(g)).strip()
        lib = m["lib"] or groups.get("lib2")
        errno = groups.get("errno")
        reason = plugin_load_reason(error, lib, int(errno) if errno and len(errno) < 4 else None)
        if reason == "absent":
            if not groups.get("dl"):  # only 2.19-2.20's "dlerror=" line also says "No plugin found"
                self.once(NcclNetPlugin, no, node, (ctx["pid"], "not_found", lib), event="not_found", name=lib, **ctx)
            return
        named = _PLUGIN_NO_PLUGIN.match(msg)
        library = lib or (named["name"] if named else None)
        self.once(NcclNetPluginLoadFailure, no, node, (ctx["pid"], error), library=library,
                  reason=reason, error=error, **ctx)

    def _completion(self, no: int, node: str, msg: str, ctx: dict[str, Any]) -> None:
        m = _COMPLETION.search(msg) or _COMPLETION_RESILIENCY.search(msg)
        if not m:
            if "Got completion from peer" in msg or "Got completion with" in msg:
                self.b.error(no, f"NCCL completion error line without a status: {msg!r}")
            return None
        rest = msg[m.end():]
        vendor = _COMPLETION_VENDOR.search(rest)
        req = _COMPLETION_REQ.search(rest)
        hca = _COMPLETION_HCA.search(rest)
        gid = _COMPLETION_GID.search(rest)
        g = m.groupdict()  # (the resiliency handler's form names no peer)
        self.b.add(NcclRdmaCompletionError, no, node=node, peer=g.get("peer"), error=int(g.get("err") or m["st"]),
                   status_text=m["st_text"], opcode=int(m["op"]) if m["op"] else None, opcode_text=m["op_text"],
                   vendor_err=int(vendor["v"]) if vendor else None,
                   request=(req["req"] or req["req2"]) if req else None, hca=hca["hca"] if hca else None,
                   local_gid=(gid["local"] or None) if gid else None, remote_gid=(gid["remote"] or None) if gid else None, **ctx)
        return None

    def finish(self) -> None:
        self._timed_complete()
        for no, node, fields in self.ranks.values():
            self.b.add(NcclRank, no, node=node, **fields)
        gdr_nodes = {node for _, node, fields, _ in self.transports.values() if fields["gdr"]}
        for no, node, fields, channels in self.transports.values():
            node_gdr = (node in gdr_nodes) if fields["family"] == "NET" else None
            self.b.add(NcclTransport, no, node=node, channel_count=len(channels), node_gdr=node_gdr, **fields)
        self.chains.finish()


# A channel line NCCL's own prefix carries, that no other message of :meth:`NcclLogState.line`
# can be (its own fast path; any other shape goes through _CHANNEL in line()):
# Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
# Channel 01/1 : 1[1] -> 0[0] [send] via NET/IB/0/GDRDMA
# Channel 00/1 : 1[1] -> 0[0] via P2P/direct pointer
_CHANNEL_FAST = re.compile(
    r"(?:Channel|Ring) (?P<ch>\d+)(?:/\d+)? : (?P<src>\d+)(?:\[[0-9a-fA-Fx]+\])? -> (?P<dst>\d+)(?:\[[0-9a-fA-Fx]+\])?"
    r"(?: \[(?P<dir>send|receive)\])? via (?P<transport>[\w/()\- ]+)$"
).match


_INIT_ENDS = ("Init START", "Init COMPLETE", "Destroy COMPLETE")


def _parts(m: re.Match[str]) -> tuple[int, int, int, str, str | None]:
    """(channel, rank, peer, transport, direction) of a _CHANNEL or _CHANNEL_FAST match."""
    return int(m["ch"]), int(m["src"]), int(m["dst"]), m["transport"], m["dir"]


#: _CHANNEL_FAST's reading of each channel message met (a fleet's nodes print the same few hundred:
#: read once a process); None for one of another shape
_CHANNEL_READ: dict[str, tuple[int, int, int, str, str | None] | None] = {}
_CHANNEL_READ_MAX = 8192


def _channel_parts(msg: str) -> tuple[int, int, int, str, str | None] | None:
    try:
        return _CHANNEL_READ[msg]
    except KeyError:
        pass
    if len(_CHANNEL_READ) >= _CHANNEL_READ_MAX:
        _CHANNEL_READ.clear()
    m = _CHANNEL_FAST(msg)
    parts = _parts(m) if m else None
    if len(msg) <= _KEPT_CHARS:  # (a hostile file's long lines are read each time, not kept as keys)
        _CHANNEL_READ[msg] = parts
    return parts


#: what _read_runs makes of the text after "NCCL INFO " on a line holding CHANNEL_AT (a fleet's nodes print
#: the same few hundred: read once a process): () without " via " (a ring order: nothing here); else
#: (_channel_parts' reading, its (rank, peer, transport, direction)), or (None, the message) for one of
#: another shape
_CHANNEL_TAILS: dict[str, tuple[Any, ...]] = {}


def _channel_tail(raw: str) -> tuple[Any, ...]:
    if raw.find(" via ", 8) == -1:
        tail: tuple[Any, ...] = ()
    else:
        msg = raw.rstrip()
        parts = _channel_parts(msg)
        tail = (None, msg) if parts is None else (parts, parts[1:])
    if len(raw) <= _KEPT_CHARS:  # (a hostile file's long lines are read each time, not kept as keys)
        if len(_CHANNEL_TAILS) >= _CHANNEL_READ_MAX:
            _CHANNEL_TAILS.clear()
        _CHANNEL_TAILS[raw] = tail
    return tail


#: an INFO message's reading where it only called once() with facts of its own values (a fleet's ranks
#: print the same start-up lines: "NET/Plugin: Could not find: libnccl-net.so", "Using network Socket"):
#: (source file, message) -> per call its class, its key after the process id, its fields (the process
#: id and device among them, replaced by the line's); () for a message that gives nothing
_RECIPES: dict[tuple[str, str], tuple[tuple[type, tuple[Any, ...], dict[str, Any]], ...]] = {}
_RECIPES_MAX = 8192
#: the longest message _RECIPES and _CHANNEL_TAILS keep a reading of (NCCL's start-up and channel lines are
#: under 200 characters; a longer one is read each time)
_KEPT_CHARS = 512


def _keep_recipe(src: str, msg: str, calls: list[tuple[Any, ...]], no: int, node: str, pid: int, dev: int) -> None:
    """Keep the once() calls of a line's reading as its message's recipe, where each depends on the line
    only through its number, node, process and device (its key led by the process id, its fields holding
    that id and the device); a reading with any other call or change was not recorded (see _read_runs)."""
    if len(msg) > _KEPT_CHARS:  # a message is kept as a key only where it is short (a hostile file's long ones are not)
        return
    recipe = []
    for cls, line, at, key, fields in calls:
        if line != no or at != node or not key or key[0] != pid or "pid" not in fields or fields["pid"] != pid \
                or "local_device" not in fields or fields["local_device"] != dev:
            return
        recipe.append((cls, key[1:], fields))
    if len(_RECIPES) >= _RECIPES_MAX:
        _RECIPES.clear()
    _RECIPES[(src, msg)] = tuple(recipe)


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    state = NcclLogState(artefact, result)
    used = 0
    line_of, node_for = state.line_of, artefact.node_for
    cands, prefixed = shared_candidates(artefact, candidates)  # (its runs, where NCCL wrote the log alone, kept for its companions)
    if type(cands) is Runs:
        if cands.lines is not None:  # a log NCCL wrote alone: its lines counted (Artefact.nonblank_lines takes them)
            artefact.counted_lines = (artefact.text, cands.lines)
        _read_runs(state, artefact, cands)
        cands = ()
    for cand in cands:
        msg = cand["msg"]
        if msg is not None:  # NCCL's prefix at the start of the line
            if prefixed is None:
                used += 1
            msg = msg.rstrip()  # what _HEADER's "(?P<msg>(?:.*\S)?)\s*$" leaves
            level = cand["level"]
            if level == "INFO":
                if msg.startswith(("Channel ", "Ring ")) and state.channel(cand.start(), node_for(cand["host"]),
                                                                           int(cand["pid"]), int(cand["dev"]), msg):
                    continue
                if not maybe(msg):
                    continue
            state.line(line_of(cand.start()), node_for(cand["host"]), int(cand["pid"]), int(cand["dev"]), level,
                       cand["src"], cand["srcline"], msg)
            continue
        text = cand.group()
        h = _HEADER.search(text)
        if h:
            used += 1
            msg, level = h["msg"], h["level"] or h["olevel"]
            if level == "INFO" and not maybe(msg):
                continue
            state.line(line_of(cand.start()), node_for(h["host"]), int(h["pid"]) if h["pid"] else None,
                       int(h["dev"]) if h["dev"] is not None else None, level,
                       h["src"] or h["osrc"], h["srcline"] or h["oline"], msg)
        elif m := _OLD_INFO.match(text):  # NCCL 2.2's INFO line: its prefix without "NCCL"
            used += 1
            state.old_info = True
            if maybe(m["msg"]):
                state.line(line_of(cand.start()), node_for(m["host"]), int(m["pid"]), int(m["dev"]), "INFO", None, None, m["msg"])
        elif m := _BARE_VERSION.match(text):  # VERSION-level line: no host prefix
            used += 1
            state.once(NcclVersion, line_of(cand.start()), artefact.node, (None, m["version"]), version=m["version"], cuda=m["cuda"])
        elif m := _BARE_MESSAGE.match(text):  # an NCCL WARN message pasted without its prefix
            used += 1
            level = "INFO" if nccl_warn_kinds.BARE_INFO_FORMS.match(m["msg"]) else "WARN"  # a verbs call NCCL only notes
            state.line(line_of(cand.start()), artefact.node, None, None, level, None, None, m["msg"])
        elif m := QUOTED_BARE.match(text):  # one quoted in a sentence
            used += 1
            msg = m["msg"].rstrip()
            level = "INFO" if nccl_warn_kinds.BARE_INFO_FORMS.match(msg) else "WARN"
            state.line(line_of(cand.start()), artefact.node, None, None, level, None, None, msg)
        elif m := _BARE_INFO.match(text):  # an NCCL INFO message pasted without its prefix
            used += 1
            state.line(line_of(cand.start()), artefact.node, None, None, "INFO", None, None, m["msg"])
    if not used and not prefixed and "Function: " in artefact.text:  # aws-ofi-nccl's tests run without NCCL: not in NCCL's log
        # its logger's lines are the plugin's own test, not a communicator at work: an INFO line counts as
        # read only where it gives a fact (its progress alone checked nothing: it read HEALTHY, "checked:
        # nccl, network"; bench/fragment_audit.py), a WARN line always (it is a failure, read as one)
        for m in _OFI_TEST_LINE.finditer(artefact.text):
            if m["level"] == "WARN":
                used += 1
                state.line(line_of(m.start()), artefact.node, None, None, "WARN", None, None, m["msg"])
            elif m["level"] == "INFO" and maybe(m["msg"]):
                before = state.b.adds
                state.line(line_of(m.start()), artefact.node, None, None, "INFO", None, None, m["msg"])
                used += state.b.adds > before
    state.finish()
    result.lines_used = used + (prefixed or 0)
    _init_not_seen_complete(artefact, state)
    return result


def _read_runs(state: NcclLogState, artefact: Artefact, runs: Runs) -> None:
    """The fast path's wanted lines, as parse() reads a prefixed candidate: a channel line of
    _CHANNEL_FAST's shape straight to its pair (its reading kept per message), an INFO line that
    maybe() refuses passed over, any other to :meth:`NcclLogState.line`. NCCL's "Channel ... via"
    lines (found by substring search for nccl_log_scan.CHANNEL_AT) are read in one
    loop between the runs, each where it stands (in text order, as a communicator's error chain
    needs: a channel line of its process ends it)."""
    node_for, channel_parts, read, recipes = artefact.node_for, _channel_parts, _CHANNEL_READ, _RECIPES
    chains, pair, b, errors, transports = state.chains, state.pair, state.b, state.b.result.errors, state.transports
    # INFO lines read before from the same process whose reading only made once() facts (every
    # rank of a process prints "Initialized NET plugin Socket"): read again, they would add nothing
    repeatable: set[tuple[str, str, str, str, str]] = set()
    # the channel set of each pair met, by the line's own prefix (or its (host, pid, dev)) and (rank,
    # peer, transport, direction): a log's ~200 channel lines make ~8 pairs, and a pair met before
    # only gains a channel
    channels_of: dict[tuple[Any, ...], set[int]] = {}
    text = artefact.text
    lines = state.quotes.counter()  # the channel lines' numbers, asked in text order
    mark = state.quotes.mark
    prefixes: dict[str, tuple[str, str, str, str | None, str | None] | None] = {}  # CHANNEL_PREFIX's groups, or None
    find, rfind, size, fullmatch, tails = text.find, text.rfind, len(text), CHANNEL_PREFIX.fullmatch, _CHANNEL_TAILS
    routed = runs.routed  # the runs hold the companions' lines too (nccl_log_scan._WANTED_RUNS_ROUTED)

    def take(host: str, pid: str, dev: str, parts: tuple[int, int, int, str, str | None], line_at: Callable[[], int]) -> None:
        """A row's channel line of _CHANNEL_FAST's shape: its channel added to its pair's."""
        if chains.open or chains.last_warn:  # else other() has nothing to end
            chains.other(node_for(host), int(pid))
        key = (host, pid, dev, parts[1:])
        chans = channels_of.get(key)
        if chans is None:
            node, p = node_for(host), int(pid)
            pair(parts, node, p, int(dev), line_at)
            channels_of[key] = transports[(node, p, *parts[1:])][3]
        else:
            chans.add(parts[0])

    def channels(at: int, upto: int) -> int:
        """Every "NCCL INFO Channel " line from ``at`` (its offset of that literal) on whose line starts
        before ``upto``, read as a prefixed INFO line: a channel line of _CHANNEL_FAST's shape adds its
        channel to its pair's; any other is what line() reads of it, where maybe() takes it; one whose
        literal stands inside another message (no CHANNEL_PREFIX before it) or without " via " (a ring
        order, "Channel 00/24 : 0 1") gives nothing here. The next such offset (-1: none)."""
        while at != -1:
            start = rfind("\n", 0, at) + 1
            if start >= upto:
                break
            end = find("\n", at)
            if end == -1:
                end = size
            raw = text[at + 10:end]
            if (tail := tails.get(raw)) is None:
                tail = _channel_tail(raw)
            if tail:  # a "... via ..." message
                prefix = text[start:at]
                if (p := prefixes.get(prefix, False)) is False:
                    m = fullmatch(prefix)
                    p = prefixes[prefix] = m.group("host", "pid", "dev", "src", "srcline") if m else None
                if p is not None:
                    parts, rest = tail
                    if parts is None:
                        msg = rest
                        if len(msg) == len(raw) or maybe(msg):
                            state.line(lines(start), node_for(p[0]), int(p[1]), int(p[2]), "INFO", p[3], p[4], msg)
                    else:
                        if chains.open or chains.last_warn:  # else other() has nothing to end
                            chains.other(node_for(p[0]), int(p[1]))
                        key = (prefix, rest)
                        chans = channels_of.get(key)
                        if chans is None:
                            host, pid, dev = p[0], p[1], p[2]
                            node, pid_ = node_for(host), int(pid)
                            pair(parts, node, pid_, int(dev), lambda: lines(start))
                            chans = channels_of[key] = transports[(node, pid_, *rest)][3]
                        else:
                            chans.add(parts[0])
            at = find(CHANNEL_AT, end)
        return at

    at = find(CHANNEL_AT)
    for run_start, run_end, first, rows in runs:
        at = channels(at, run_start)
        mark(first, run_start)
        if rows and text[run_end - 1] == "\n":  # the line after the run: its rows on from its first
            mark(first + len(rows), run_end)
        while at != -1 and at < run_end:  # a row of this run (taken for another of its words): read below
            end = find("\n", at)
            at = -1 if end == -1 else find(CHANNEL_AT, end)
        for no, (host, pid, dev, src, srcline, level, raw) in enumerate(rows, first):
            msg = raw.rstrip()  # what _HEADER's "(?P<msg>(?:.*\S)?)\s*$" leaves
            if level == "INFO":
                if msg.startswith(("Channel ", "Ring ")) and (parts := read.get(msg) or channel_parts(msg)) is not None:
                    take(host, pid, dev, parts, lambda no=no: no)
                    continue
                if msg.endswith(_INIT_ENDS) and (m := _INIT.match(msg)) and _ROW_PADDING not in msg \
                        and "P2P" not in msg and "posix_fallocate" not in msg:
                    # a communicator's Init/Destroy line in _INIT's shape from its start (each rank prints
                    # three: most of an nccl-tests log's wanted lines but its channels): what line() does
                    # with it, without its other tests (none can take it: nccl_log_setup's keys with a blank
                    # fit none of its words, and only these two fit one); read again, it changes nothing
                    if chains.open or chains.last_warn:
                        chains.other(node_for(host), int(pid))
                    state._init(no, node_for(host), msg, {"pid": int(pid), "local_device": int(dev)}, m)
                    continue
                # _WANTED_PREFIXED is maybe()'s patterns on the message: it took the line, so only a
                # message that lost trailing blanks ("... via " -> "... via") can be refused here; or, in
                # routed runs, a line only a companion reader wants (a ring order, "24 coll channels, ...")
                if routed and (msg.startswith(COMPANION_STARTS) or "NCCL INFO " in msg or " comm 0x" in msg):
                    if not companion_maybe(msg):
                        continue
                elif len(msg) != len(raw) and not maybe(msg):
                    continue
                key = (host, pid, src, srcline, msg)
                if key in repeatable:
                    if chains.open or chains.last_warn:
                        chains.other(node_for(host), int(pid))
                    continue
                before = (b.adds - state.once_adds, state.ordered, len(errors))
                node, pid_, dev_ = node_for(host), int(pid), int(dev)
                if (recipe := recipes.get((src, msg))) is not None:  # read before, in any file: its once() calls again
                    if chains.open or chains.last_warn:  # as line() ends the process's chain
                        chains.other(node, pid_)
                    for cls, rest, fields in recipe:
                        fields = fields.copy()
                        fields["pid"], fields["local_device"] = pid_, dev_
                        state.once(cls, no, node, (pid_, *rest), **fields)
                else:
                    touched, state.recording = state.touched, []
                    state.line(no, node, pid_, dev_, level, src or None, srcline or None, msg)
                    calls, state.recording = state.recording, None
                    if (b.adds - state.once_adds, state.ordered, len(errors)) == before and state.touched == touched:
                        _keep_recipe(src, msg, calls, no, node, pid_, dev_)
                if (b.adds - state.once_adds, state.ordered, len(errors)) == before:
                    repeatable.add(key)
                continue
            state.line(no, node_for(host), int(pid), int(dev), level, src or None, srcline or None, msg)
    channels(at, size + 1)


def _init_not_seen_complete(artefact: Artefact, state: NcclLogState) -> None:
    """A log of NCCL's INFO lines in which no communicator finished its initialisation (NCCL
    prints "comm %p rank %d nranks %d ... - Init COMPLETE" under NCCL_INIT at the end of
    ncclCommInitRank, in every release since 2.4; "Destroy COMPLETE" once one was torn down) is a
    job hung inside NCCL's init, or a log cut before it: either way it does not show NCCL
    working, so it is a capture limit (the verdict cannot be healthy), not a finding. A later
    window of a large file (line_offset > 0) is not asked: its init lies in the first.
    vm:1428:1439 [0] NCCL INFO ncclCommInitRankConfig comm 0x55e484784590 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0xb308046427702aaf - Init COMPLETE"""
    text = artefact.text
    if artefact.line_offset:
        return
    if state.timed or any(fields["init_complete"] for _no, _node, fields in state.ranks.values()):
        # a rank read complete: its line holds "Init COMPLETE" or "Destroy COMPLETE" (no search of the text). Each rank
        # prints its own START and COMPLETE, so a rank seen starting whose COMPLETE is not shown did not finish its init
        # here: some ranks of a job stuck in init, or a window cut between (session 23's fragment audit: a bundle's
        # ranks 6-7 at 'Init START' with 0-3 at 'Init COMPLETE' read HEALTHY, 'checked: nccl')
        if started := sorted(f["rank"] for _no, _node, f in state.ranks.values() if not f["init_complete"]):
            state.b.limit(state.line_of(len(text.rstrip())), "cut_short",
                          f"NCCL rank(s) {', '.join(map(str, started[:8]))}{' ...' if len(started) > 8 else ''} "
                          "print 'Init START' and no 'Init COMPLETE': their initialisation is not seen finished")
        # a process that connects its channels (a transport's "Ring/Channel ... via" line: NCCL's init connects them
        # before Init COMPLETE) and prints no Init line at all, beside processes that finished theirs: the paste began
        # after its Init START and ends before its COMPLETE, so its init is not seen finished either
        # (OpenNMT/OpenNMT-py#1606, a job that hung: ranks 9-14 at 'Init COMPLETE', process 435's last lines
        # 'Ring 00 : 0 -> 8 [receive] via NET/Socket/0' and 'Trees [0] 0-', the paste cut)
        elif pending := sorted({(k[0], k[1]) for k in state.transports if k[1] is not None}
                               - {(k[0], k[1]) for k in state.ranks} - {(k[0], k[1]) for k in state.timed}):
            state.b.limit(state.line_of(len(text.rstrip())), "cut_short",
                          f"NCCL process(es) {', '.join(f'{n}:{p}' for n, p in pending[:8])}{' ...' if len(pending) > 8 else ''} "
                          "connect channels and print no 'Init COMPLETE': their initialisation is not seen finished")
        return
    if ("NCCL INFO" not in text and not state.old_info) or "Init COMPLETE" in text or "Destroy COMPLETE" in text:
        return  # (NCCL 2.2's INFO lines, without "NCCL", are NCCL's INFO lines too: 2.2 printed no Init COMPLETE)
    state.b.limit(state.line_of(len(text.rstrip())), "cut_short",
            "NCCL's INFO lines end before any communicator finished its initialisation (no 'Init COMPLETE' line): "
            "a job hung in NCCL's init, or a log cut short; NCCL was not seen working")


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)
#: whether every line carries NCCL's prefix, and whether a marker of an unprefixed NCCL line occurs,
#: answered in the same pass (nccl_log_scan.candidates, _no_other)
TEXT_GATES = (nccl_log_scan.ALL_PREFIXED_TEXT, nccl_log_scan.ANY_OTHER_LITERAL)

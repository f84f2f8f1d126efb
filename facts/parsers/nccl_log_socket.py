"""NCCL's socket and bootstrap messages: no interface, a socket that cannot be created, a connect
that failed, timed out, was refused, retried or gave up, a peer that closed. Called by
:mod:`stethoscope.facts.parsers.nccl_log` for each NCCL-prefixed line (its message part) and by
:mod:`stethoscope.facts.parsers.torch_nccl_forwarded` for NCCL messages other programs forward;
the fact is ``nccl_bootstrap_failure`` of :mod:`stethoscope.facts.parsers.nccl_log_facts`.

NCCL's own format strings (``git grep`` over NVIDIA/nccl v2.3.5-5 to v2.28.9-1, src/)::

    WARN("Call to " name " timeout : %s", strerror(errno))             (2.3 include/core.h SYSCHECKNTIMES: "Call to connect timeout : Connection refused")
    INFO(NCCL_ALL,"Call to connect returned %s, retrying", ...)         (2.4-2.21)
    WARN("Connect to %s failed : %s", ...)                              (2.4-2.9; 2.10-2.12 "Net : Connect to ...")
    WARN("socketStartConnect: Connect to %s failed : %s", ...)          (2.13-2.21)
    WARN("socketPollConnect: Connect to %s returned %d(%s) errno %d(%s)", ...)   (2.19-2.21)
    WARN("socketStartConnect: exceeded retries (%d)", ...)  WARN("socketPollConnect: exceeded timeouts (%d)", ...)
    INFO(NCCL_NET|NCCL_INIT, "%s: connect to %s returned %s, retrying (%d/%ld) after sleep for %u msec", ...)   (2.22 and later)
    WARN("%s: connect to %s returned %s, exceeded error retry count after %d attempts", ...)
    WARN("%s: connect to %s failed : %s", funcName, ...)                 (2.22 and later: errors it does not retry)
    WARN("socketPollConnect to %s failed with error %s", ...)
    WARN("socketPollConnect poll() failed with error %s", ...)   WARN("socketPollConnect poll() returned %d%s", ...)   (2.22-2.26)
    WARN("Bootstrap : no socket interface found")    WARN("NET/Socket : No usable listening interface found")
    WARN("Net : No interface found in the same subnet as remote address %s", ...)   (2.12-2.27, NCCL_COMM_ID set)
    WARN("Net : Socket creation failed : %s", ...)   (2.3-2.9)   WARN("ncclSocketInit: Socket creation failed : %s", ...)
    WARN("Call to recv failed : %s", ...)   (2.4-2.9 include/socket.h)   WARN("No usable listening interface found")   (2.3 net_socket.cu)
    WARN("Net : Call to recv from %s failed : %s", ...)   (2.9-2.18)   WARN("socketProgressOpt: Call to recv from %s failed : %s", ...)   (2.19 on; sends too print "recv")
    WARN("socketProgressOpt: Call to %s %s failed : %s", "recv from" | "send to", ...)   (2.24-2.28)
    WARN("%s: connect returned %s, exceeded error retry count (%d)", ...)   (2.24-2.26)
    WARN("socketTryAccept: Accept failed: %s", strerror(errno))       (2.18 on; "ncclOsSocketTryAccept: ..." 2.29)
    WARN("socketTryAccept: exceeded error retry count (%d), %s", ...)   (2.24-2.26; "... after %d attempts, %s" 2.27 on)
    WARN("[Service thread] Accept failed %s", strerror(errno))         (2.18 on, src/proxy.cc: the proxy's listener)
    SYSCHECK(accept(...), "accept"), SYSCHECK(bind(...), "bind"): "Call to %s failed : %s" (to 2.22; "failed: %s" 2.23 on)

Since 2.22 NCCL retries ETIMEDOUT, EHOSTUNREACH and ECONNREFUSED and gives up on any other error
at once ("failed : Software caused connection abort", "Network is unreachable").
"""
from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from stethoscope.facts.parsers.nccl_log_facts import NcclBootstrapFailure

if TYPE_CHECKING:
    from stethoscope.facts.parsers.nccl_log import NcclLogState

# Bootstrap : no socket interface found
# NET/Socket : No usable listening interface found
# no device found matching doesnotexist0, verify NCCL_OOB_NET_IFNAME
NO_INTERFACE = re.compile(
    r"^(?:Bootstrap ?: no socket interface found|NET/Socket ?: No usable listening interface found"
    r"|no device found (?:matching|after excluding) .*NCCL_OOB_NET_IFNAME)"
)
# Net : No interface found in the same subnet as remote address 10.1.2.3<54321>
NO_SUBNET_INTERFACE = re.compile(r"^(?:\w+ ?: )?No interface found in the same subnet as remote address (?P<peer>\S+)")
# WARN("No usable listening interface found")   (v2.3.5-5 transport/net_socket.cu:121, ncclSocketListen with findSubnetIf:
#   no local interface in the same subnet as the peer's address; 2.18 on the same words after "NET/Socket : " mean no
#   interface at all, NO_INTERFACE)
# No usable listening interface found
NO_SUBNET_LISTEN = re.compile(r"^No usable listening interface found\s*$")
# Net : Socket creation failed : Address family not supported by protocol                     (2.4)
# ncclSocketInit: Socket creation failed : Address family not supported by protocol             (2.18 and later)
# Socket creation failed : Address family not supported by protocol                              (nccl#210)
SOCKET_CREATION = re.compile(r"^(?:\w+ ?: )?Socket creation failed ?: ?(?P<err>.+)$")
# socketProgress: Connection closed by remote peer 10.10.1.3<36138>                            (nccl#1612)
# Net : Connection closed by remote peer 10.0.0.2<43512>                                          (2.9-2.12)
CONNECTION_CLOSED = re.compile(r"^(?:\w+ ?: )?Connection closed by remote peer(?: (?P<peer>\S+))?")
# socketProgressOpt: Call to recv from 172.16.0.4<33759> failed : Connection reset by peer        (nccl#2076)
# Net : Call to recv from 10.0.0.2<41234> failed : Broken pipe      (2.14's WARN("Net : Call to recv from %s failed : %s", ...),
#   misc/socket.cc, filled in)
# socketProgressOpt: Call to send to 10.0.0.12<49152> failed : Connection timed out
#   (2.24-2.28 WARN("socketProgressOpt: Call to %s %s failed : %s", "recv from" | "send to", ...), misc/socket.cc:46)
# WARN("Call to recv failed : %s", strerror(errno))   (v2.4.2-1 .. v2.9.9-1 include/socket.h:400/424, socketProgressOpt:
#   recv() on an established connection failed; no peer named before 2.10)
# Call to recv failed : Connection reset by peer
CALL_RECV_FAILED = re.compile(r"^(?:\w+ ?: ?)?Call to (?:(?:recv from|send to) (?P<peer>\S+)|recv) failed ?: ?(?P<err>.*\S|[^\S\n])\s*$")
# socketPollConnect: connect returned Connection timed out, exceeded error retry count (35)
#   (2.24-2.26 WARN("%s: connect returned %s, exceeded error retry count (%d)", ...), misc/socket.cc:544: no peer named)
CONNECT_GAVE_UP = re.compile(r"^\w+: connect returned (?P<err>.+?), exceeded error retry count \(\d+\)")
# Call to connect returned Connection timed out, retrying
# socketStartConnect: connect to 10.0.0.2<45763> returned Connection refused, retrying (1/34) after sleep for 100 msec
# (the error bounded, 300 characters: strerror's are a few words; an unbounded lazy run scanned a long line to its
# end once per "connect returned" in it, 1.4 s CPU on bench/redos.py's 120,000-character line -> 7 ms)
CONNECT_RETRY = re.compile(r"(?:Call to connect returned (?P<err1>.{1,300}?)|connect to (?P<peer>\S++) returned (?P<err2>.{1,300}?)), retrying")
# socketStartConnect: Connect to 10.0.0.2<45763> failed : Software caused connection abort
# Net : Connect to 10.1.1.2<34567> failed : Connection refused
# socketPollConnect: Connect to 10.1.1.2<34567> returned 111(Connection refused) errno 115(Operation now in progress)
# socketPollConnect: connect to 10.1.1.2<34567> returned No route to host, exceeded error retry count after 35 attempts
CONNECT_FAILED = re.compile(r"[Cc]onnect to (?P<peer>\S+) (?:failed :|failed with error|returned) (?P<err>.+)$")
# socketPollConnect poll() returned 1, no POLLOUT events                       (NVIDIA/nccl#1618, NCCL 2.2x, nodes dropping SYNs)
# socketPollConnect poll() failed with error Invalid argument
#   (misc/socket.cc socketPollConnect, 2.22-2.26: WARN("socketPollConnect poll() failed with error %s", strerror(errno)) and,
#   2.23-2.26, WARN("socketPollConnect poll() returned %d%s", ret, (pfd.revents & POLLOUT) ? "" : ", no POLLOUT events"):
#   the poll on a socket still connecting to a peer failed or woke with an error event (POLLERR/POLLHUP: the connect was
#   reset or timed out) and NCCL gave up (ncclSystemError) without reading why or retrying; 2.27 reads SO_ERROR instead
#   and says "connect to %s returned %s, ...", read by CONNECT_FAILED / CONNECT_RETRY)
POLL_CONNECT = re.compile(r"^socketPollConnect poll\(\) (?:failed with error (?P<err>\S.{0,200}?)|returned (?P<ret>-?\d+)(?P<nopollout>, no POLLOUT events)?)\s*$")
# socketTryAccept: Accept failed: Bad file descriptor                                              (nccl#1382)
# ncclOsSocketTryAccept: Accept failed: Too many open files       socketTryAccept: exceeded error retry count after 1 attempts, ...
# [Service thread] Accept failed Resource temporarily unavailable   (nccl#1610; a listening socket's accept(): its errno, not a peer's)
# Call to accept failed : Too many open files   (NCCL's SYSCHECKVAL(accept(...), "accept", fd) in src/include/checks.h:
#   WARN("Call to " name " failed : %s", strerror(errno)), EMFILE's strerror)
ACCEPT_FAILED = re.compile(r"^(?:\w{0,40}[Ss]ocketTryAccept: (?:Accept failed: |exceeded error retry count (?:\(\d+\)|after \d+ attempts), )"
                           r"|\[Service thread\] Accept failed |(?:\w+ ?: )?Call to accept failed ?: ?)(?P<err>\S.*?)\s*$")
# misc/socket.cc:409 NCCL WARN Call to bind failed: Address already in use      (nccl#1882: 256 x 8 ranks' alltoall, no PXN)
BIND_FAILED = re.compile(r"^(?:\w+ ?: )?Call to bind failed ?: ?(?P<err>\S.*?)\s*$")
# Call to connect timeout : Connection refused                (2.3, horovod#666)
CALL_TIMEOUT = re.compile(r"^Call to connect timeout : (?P<err>[^\"]+?)\s*(?:\".*)?$")
# socketStartConnect: exceeded retries (20000)          socketPollConnect: exceeded timeouts (20)
CONNECT_EXCEEDED = re.compile(r"^\w+: exceeded (?P<what>retries|timeouts) \(\d+\)")

#: strerror() texts of connect() (glibc) and what they mean for NCCL's connection
_REASONS = (
    ("refused", "connection_refused"),           # ECONNREFUSED: reachable, nobody listens there
    ("timed out", "timeout"),                    # ETIMEDOUT
    ("timeout", "timeout"),
    ("unreachable", "unreachable"),              # ENETUNREACH "Network is unreachable", EHOSTUNREACH "No route to host"
    ("no route to host", "unreachable"),
    ("connection abort", "connection_aborted"),  # ECONNABORTED "Software caused connection abort"
    ("reset by peer", "connection_reset"),       # ECONNRESET
    # NCCL's Windows port (src/os/windows.cc, 2.29 on) prints FormatMessage's text for the WinSock error
    # (getWSAErrorMessage): "No connection could be made because the target machine actively refused it." (10061) and
    # "A socket operation was attempted to an unreachable host." (10065) are read above; these say it in other words:
    ("did not properly respond after a period of time", "timeout"),                  # WSAETIMEDOUT 10060
    ("aborted by the software in your host machine", "connection_aborted"),          # WSAECONNABORTED 10053
    ("forcibly closed by the remote host", "connection_reset"),                      # WSAECONNRESET 10054
)

#: the WinSock error codes NCCL's Windows port prints before (or, 2.29.2-2.29.3, without) FormatMessage's text:
#:   WARN("ncclOsSocketProgressOpt: Call to %s %s failed : %d (%s)", "recv from" | "send to", ..., wsaError, text)   (v2.30.7-1 os/windows.cc:401)
#:   WARN("ncclOsSocketProgressOpt: Call to %s %s failed : %u", ...)   (v2.29.2-1 .. v2.29.3-1 os/windows.cc:255)
#:   ncclOsSocketProgressOpt: Call to send to 10.0.0.12<49152> failed : 10053        (CONSTRUCTED from the 2.29.2 format)
_WSA_REASONS = {"10060": "timeout", "10061": "connection_refused", "10065": "unreachable", "10051": "unreachable",
                "10053": "connection_aborted", "10054": "connection_reset"}
_WSA_CODE = re.compile(r"^(100\d\d)(?: \(|\s*$)")


def failure_reason(error: str) -> str:
    """``Connection refused`` -> connection_refused, ``No route to host`` -> unreachable, ``10060 (...)`` -> timeout, ..."""
    if (m := _WSA_CODE.match(error)) and m[1] in _WSA_REASONS:
        return _WSA_REASONS[m[1]]
    low = error.lower()
    for text, reason in _REASONS:
        if text in low:
            return reason
    return "other"


@lru_cache(maxsize=4096)  # a node's ranks name the same few addresses, each rank log again
def loopback_address(peer: str | None) -> bool:
    """``127.0.0.1<45069>`` / ``::1<1234>`` / ``[::1]<1234>``: a peer address on a loopback interface."""
    if not peer:
        return False
    addr = peer.split("<", 1)[0].strip("[]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(addr).is_loopback
    except ValueError:
        return False


def link_local_address(peer: str | None) -> bool:
    """``169.254.0.1<40815>`` (verl-project/verl#726, on AWS): a peer address in IPv4's link-local
    169.254.0.0/16 (RFC 3927: a link's own, never routed; the cloud metadata and container bridge
    links use it). IPv6's fe80::/10 is not counted: NCCL dials it with its scope, on one link."""
    if not peer or not peer[:1].isdigit():
        return False
    addr = peer.split("<", 1)[0]
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    return ip.version == 4 and ip.is_link_local


def read(msg: str) -> dict[str, Any] | None:
    """The fields of the ``nccl_bootstrap_failure`` one failure message (not a retry) stands for."""
    if NO_INTERFACE.match(msg):
        return dict(reason="no_socket_interface", peer=None)
    if m := NO_SUBNET_INTERFACE.match(msg):
        return dict(reason="no_subnet_interface", peer=m["peer"])
    if NO_SUBNET_LISTEN.match(msg):
        return dict(reason="no_subnet_interface", peer=None)
    if m := SOCKET_CREATION.match(msg):
        return dict(reason="socket_creation_failed", peer=None, error=m["err"])
    if m := CONNECTION_CLOSED.match(msg):
        return dict(reason="connection_closed", peer=m["peer"])
    if m := CALL_RECV_FAILED.match(msg):
        # a connection that was up: a reset or a broken pipe is the peer going away, like a close
        reason = failure_reason(m["err"])
        if reason == "connection_reset" or "broken pipe" in m["err"].lower():
            reason = "connection_closed"
        return dict(reason=reason, peer=m["peer"], error=m["err"])
    if m := ACCEPT_FAILED.match(msg):
        return dict(reason="accept_failed", peer=None, error=m["err"])
    if m := BIND_FAILED.match(msg):
        return dict(reason="bind_failed", peer=None, error=m["err"])
    if m := POLL_CONNECT.match(msg):
        # no peer named, no errno of the connect: a connect to a peer that did not complete
        return dict(reason="connect_failed", peer=None, error=m["err"] or ("poll() returned " + m["ret"] + (m["nopollout"] or "")))
    if m := CONNECT_GAVE_UP.match(msg):
        return dict(reason=failure_reason(m["err"]), peer=None, error=m["err"])
    if m := CONNECT_FAILED.search(msg):
        return dict(reason=failure_reason(m["err"]), peer=m["peer"], error=m["err"].strip())
    if m := CALL_TIMEOUT.match(msg):
        return dict(reason=failure_reason(m["err"]), peer=None, error=m["err"])
    if m := CONNECT_EXCEEDED.match(msg):
        return dict(reason="connection_refused" if m["what"] == "retries" else "timeout", peer=None)
    return None


def read_retry(msg: str) -> dict[str, Any] | None:
    """The fields of the ``nccl_bootstrap_failure`` a connect retry (an INFO line) stands for."""
    if "retrying" in msg and (m := CONNECT_RETRY.search(msg)):
        return dict(reason=failure_reason(m["err1"] or m["err2"]), peer=m["peer"], retrying=True)
    return None


def handle(p: "NcclLogState", no: int, node: str, msg: str, level: str, ctx: dict[str, Any]) -> None:
    """Add the ``nccl_bootstrap_failure`` of one socket message; retries count at INFO, failures at WARN."""
    if (retry := read_retry(msg)) is not None:
        p.once(NcclBootstrapFailure, no, node, (ctx["pid"], retry["reason"], retry["peer"]),
               peer_loopback=loopback_address(retry["peer"]), peer_link_local=link_local_address(retry["peer"]), message=msg,
               **retry, **ctx)
        return
    if level != "WARN":
        return
    fields = read(msg)
    if fields is not None:
        p.b.add(NcclBootstrapFailure, no, node=node, message=msg, peer_loopback=loopback_address(fields["peer"]),
                peer_link_local=link_local_address(fields["peer"]), **fields, **ctx)

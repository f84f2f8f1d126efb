"""The error lines of the infiniband-diags fabric tools and their libraries (ibnetdiscover,
perfquery, ibqueryerrors, iblinkinfo, ...), whatever the tool printed beside them.

Sample content (the linux-rdma list 2019-11-16, ibaddr on RoCE; guilbaults/infiniband-exporter#12;
the last three in the formats of the sources below)::

     ibwarn: [1054] mad_rpc_open_port: client_register for mgmt 1 failed
      Failed to open (null) port 0
    src/query_smp.c:199; umad (DR path slid 0; dlid 0; 0,1,10,19 Attr 0x11:0) bad status 110; Connection timed out
    src/ibnetdisc.c:802; can't open MAD port ((null):0)
    ibnetdiscover: iberror: failed: discover failed
    perfquery: iberror: failed: Failed to open '(null)' port '0'

Formats (linux-rdma/rdma-core): libibmad rpc.c ``IBWARN("client_register for mgmt %d failed")`` in
mad_rpc_open_port (the tool could not register a management agent on the local port: no
InfiniBand port there, as on a RoCE/Ethernet port, ib_umad not loaded, or no access to
/dev/infiniband/umad*); libibnetdisc ``IBND_ERROR`` = ``"%s:%u; " fmt`` with ``can't open MAD port
(%s:%d)`` (ibnetdisc.c) and ``umad (%s Attr 0x%x:%u) bad status %d; %s`` (query_smp.c: an SMP along
that directed route got no good answer); infiniband-diags ibdiag_common.c iberror ``%s: iberror:
failed: %s`` / ``%s: iberror: [pid %d] %s: failed: %s`` (the tool exits). ``ibpanic:`` lines are
ibstat's reader's (facts/parsers/ibstat.py); other ``ibwarn:`` lines (debug traces, a
PortXmitDiscardDetails query a port does not support) are read past.

Facts: ``ib_diag_tool_error`` per line, ``what`` open_port / tool_failed / smp_timeout (status 110,
ETIMEDOUT) / smp_error (another status). Empty
output: nothing read.
"""
from __future__ import annotations

import re

from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.kinds.ib_links import IbDiagToolError

KIND = "ib_diag_errors"

#  ibwarn: [1054] mad_rpc_open_port: client_register for mgmt 1 failed
_REGISTER = re.compile(r"(?:ibwarn: \[\d{1,10}\] )?mad_rpc_open_port: client_register for mgmt (?:class )?\d{1,3} failed")
# src/ibnetdisc.c:802; can't open MAD port ((null):0)      (IBND_ERROR "%s:%u; " of ibnetdisc.c's "can't open MAD port (%s:%d)")
_MAD_PORT = re.compile(r"ibnetdisc\.c:\d{1,6}; (?P<msg>can't open MAD port \([^\n]{0,80}\))")
# src/query_smp.c:199; umad (DR path slid 0; dlid 0; 0,1,10,19 Attr 0x11:0) bad status 110; Connection timed out
_SMP = re.compile(r"query_smp\.c:\d{1,6}; (?P<msg>umad \((?:DR path (?:slid \d{1,5}; dlid \d{1,5}; )?(?P<path>[\d,]{1,200})|[^\n)]{0,200}?) Attr 0x[0-9a-fA-F]{1,8}:\d{1,10}\) bad status (?P<status>\d{1,5}); [^\n]{0,120})")
# ibnetdiscover: iberror: failed: discover failed     /    perfquery: iberror: [pid 1234] main: failed: Failed to open '(null)' port '0'
_IBERROR = re.compile(r"(?:^|[\s/])(?P<tool>[A-Za-z_][\w.-]{0,40}): iberror: (?:\[pid \d{1,10}\] [\w.]{1,60}: )?failed: (?P<msg>[^\n]{1,300}?)\s*$")
#   Failed to open (null) port 0      (older tools print the reason alone: linux-rdma list, 2019-11-16, ibaddr on RoCE;
#   the device is "(null)", quoted, or an RDMA device name like mlx5_0: "Failed to open serial port 3" is not this)
_FAILED_OPEN = re.compile(r"^\s{0,8}Failed to open (?:\(null\)|'[^'\s]{1,40}'|[a-z][a-z0-9]{1,15}_\d{1,3}) port '?\d{1,3}'?\s*$")
# Failed to open '(null)' port '0'   /   can't open MAD port    (the open-port part of an iberror's reason)
_OPEN_REASON = re.compile(r"Failed to open '[^'\n]{0,40}' port|can't open MAD port|mad_rpc_open_port")
_DETECT = re.compile(r"mad_rpc_open_port: client_register for mgmt|^\s{0,8}Failed to open (?:\(null\)|'[^'\s]{1,40}'|[a-z][a-z0-9]{1,15}_\d{1,3}) port '?\d{1,3}'?\s*$|ibnetdisc\.c:\d{1,6}; can't open MAD port|query_smp\.c:\d{1,6}; umad \(|: iberror: (?:\[pid \d{1,10}\] [\w.]{1,60}: )?failed: ", re.M)


def detect(head: str) -> bool:
    return ("mad_rpc_open_port" in head or "Failed to open" in head or "MAD port" in head or "query_smp.c" in head or "iberror" in head) and bool(_DETECT.search(head))


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if "mad_rpc_open_port" in line and _REGISTER.search(line):
            fb.add(IbDiagToolError, n, what="open_port", message=line.strip()[:300])
        elif "MAD port" in line and (m := _MAD_PORT.search(line)):
            fb.add(IbDiagToolError, n, what="open_port", tool="libibnetdisc", message=m["msg"])
        elif "query_smp.c" in line and (m := _SMP.search(line)):
            fb.add(IbDiagToolError, n, what="smp_timeout" if m["status"] == "110" else "smp_error",
                   tool="libibnetdisc", message=m["msg"].strip(), dr_path=m["path"], status=int(m["status"]))
        elif "Failed to open" in line and _FAILED_OPEN.match(line):
            fb.add(IbDiagToolError, n, what="open_port", message=line.strip())
        elif "iberror" in line and (m := _IBERROR.search(line)):
            what = "open_port" if _OPEN_REASON.search(m["msg"]) else "tool_failed"
            fb.add(IbDiagToolError, n, what=what, tool=m["tool"], message=m["msg"])
        else:
            continue
        result.lines_used += 1
    return result


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT,)

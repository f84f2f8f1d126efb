"""A cloud instance metadata service (IMDS) that a program on the node could not reach: curl's and Python's
connection errors naming its address.

Boot scripts ask the metadata service what the instance is (its type, region, identity) at 169.254.169.254 (AWS,
Azure, GCP, OCI), AWS's IPv6 fd00:ec2::254 or GCP's metadata.google.internal. On EKS's GPU AMIs
/etc/eks/nvidia-kmod-load.sh asks it the instance type to choose the NVIDIA kernel module's flavour (open or
proprietary); run before the network was up it got no answer and loaded no module, so nvidia-smi could not reach the
driver (awslabs/amazon-eks-ami#1748; the unit was made to wait for the network in awslabs/amazon-eks-ami#1962).
The forms, from the clients' sources, with sample lines (real where a thread is named) beside them::

    curl lib/connect.c: failf(data, "Failed to connect to %s port %u after %" FMT " ms: %s", host, port, ms, err)
      (7.75 on; "Failed to connect to %s port %ld: %s" before), the tool's "curl: (%d) %s" (the exit code: 7 no
      connection, 28 timed out); "Could not resolve host: %s" (6) for a name:
      4월 04 11:13:00 localhost configure-nvidia.sh[2177]: curl: (7) Failed to connect to 169.254.169.254 port 80 after 0
                                             (awslabs/amazon-eks-ami#1748, journalctl under a Korean locale, cut)
    urllib3 (requests, botocore, cloud-init): "HTTPConnectionPool(host=%r, port=%r): Max retries exceeded with url:
      %s (Caused by %r)", or the pool's "(host=..., port=...): <reason>":
      HTTPConnectionPool(host='169.254.169.254', port=80): Max retries exceeded with url: /latest/api/token (Caused by
      NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f...>: Failed to establish a new connection:
      [Errno 101] Network is unreachable'))      (CONSTRUCTED from that format; awslabs/amazon-eks-ami#2360 quotes it as
      "HTTPConnectionPool(host='169.254.169.254', ...): Network is unreachable")

Fact: ``instance_metadata_unreachable`` per line (address, client, the client's words, the syslog tag of the program
that ran it where the line keeps one, curl's code). A curl line that names another host, or curl's errors that name
none ("Connection timed out after 1001 milliseconds"), are not this reader's. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.cloud import InstanceMetadataUnreachable  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "instance_metadata"

# the metadata service's addresses: the link-local IPv4 every major cloud serves it on, AWS's IPv6, GCP's name
_ADDR = r"(?P<addr>169\.254\.169\.254|\[?fd00:ec2::254\]?|metadata\.google\.internal)"
# configure-nvidia.sh[2177]: curl: (7) Failed to connect to 169.254.169.254 port 80 after 0
# curl: (28) Failed to connect to 169.254.169.254 port 80 after 1001 ms: Timeout was reached      (curl 8, filled in)
# curl: (6) Could not resolve host: metadata.google.internal                                      (filled in)
# (the client's words start the line or follow a blank, a bracket or a colon: one quoted in a sentence's inline code,
# "`curl: (7) ...`", is a mention, not read)
_CURL = re.compile(r"(?:(?P<tag>[\w.@-]{1,64})\[\d{1,10}\]: )?(?:^|(?<=[\s\]:>]))curl: \((?P<code>\d{1,2})\) "
                   r"(?P<err>(?:Failed to connect to|Could not resolve host:) " + _ADDR + r"(?![\w.:-])[^\n]{0,300})")
# HTTPConnectionPool(host='169.254.169.254', port=80): Max retries exceeded with url: /latest/api/token (Caused by ...)
_PY = re.compile(r"(?:(?P<tag>[\w.@-]{1,64})\[\d{1,10}\]: [^\n]{0,200}?)?(?:^|(?<=[\s\[(:>]))HTTPS?ConnectionPool\(host='" + _ADDR
                 + r"', port=\d{1,5}\): (?P<err>[^\n]{1,400})")
_GATE = ("169.254.169.254", "fd00:ec2::254", "metadata.google.internal")


def detect(head: str) -> bool:
    if not any(g in head for g in _GATE):
        return False
    return _CURL.search(head) is not None or _PY.search(head) is not None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    for n, line in enumerate(artefact.lines, 1):
        if not any(g in line for g in _GATE):
            continue
        raw = artefact.raw_line(n) if artefact.raw_text is not None else line  # the tag: the normaliser may take it off
        if "curl: (" in line and (m := _CURL.search(line)) is not None:
            t = _CURL.search(raw)
            b.add(InstanceMetadataUnreachable, n, address=m["addr"].strip("[]"), client="curl", error=m["err"].strip(),
                  program=(t["tag"] if t else None) or m["tag"], curl_code=int(m["code"]))
            result.lines_used += 1
        elif "ConnectionPool(" in line and (m := _PY.search(line)) is not None:
            t = _PY.search(raw)
            b.add(InstanceMetadataUnreachable, n, address=m["addr"].strip("[]"), client="python", error=m["err"].strip(),
                  program=(t["tag"] if t else None) or m["tag"])
            result.lines_used += 1
    return result


#: the line signatures this reader owns (all readers' signatures are matched in one pass, RE2: facts/classify.py)
SIGNATURES = (re.compile(r"curl: \(\d{1,2}\) (?:Failed to connect to|Could not resolve host:) (?:169\.254\.169\.254|\[?fd00:ec2::254"
                         r"|metadata\.google\.internal)|ConnectionPool\(host='(?:169\.254\.169\.254|fd00:ec2::254|metadata\.google\.internal)'"),)

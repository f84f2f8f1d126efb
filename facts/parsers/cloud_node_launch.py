"""A cloud cluster's node launch refused by the cloud: AWS ParallelCluster's Slurm plugin logs
(``/var/log/parallelcluster/slurm_resume.log``, ``clustermgtd``) and the reason it gives the node,
as slurmctld's log, ``scontrol show node`` and ``sinfo -R`` show it.

When Slurm powers a cloud node up, ParallelCluster's resume program asks EC2 for the instance
(RunInstances, or CreateFleet from 3.8); when EC2 refuses, the program logs EC2's error code and
message, sets the node DOWN with the reason ``(Code:<code>)Failure when resuming nodes`` and Slurm
requeues the job. With fast insufficient-capacity fail-over, the compute resource's other powered-off
nodes get ``(Code:<code>)Temporarily disabling node due to insufficient capacity``.

Sample content (real lines: aws/aws-parallelcluster#2716 and #5670, aws/aws-parallelcluster-node#564
and #676)::

    2021-05-18 14:05:41,318 - [slurm_plugin.common:add_instances_for_nodes] - ERROR - Encountered exception when launching instances for nodes (x1) ['gpu1-dy-g4dnxlarge-7']: An error occurred (InsufficientInstanceCapacity) when calling the RunInstances operation (reached max retries: 1): We currently do not have sufficient g4dn.xlarge capacity in the Availability Zone you requested (us-east-1a). ...
    2023-09-19 10:56:38,992 - [slurm_plugin.fleet_manager:_launch_instances] - ERROR - JobID 253 - Error in CreateFleet request (7654c2d2-e5fe-4d5f-a8bc-7404045f3618): InsufficientInstanceCapacity - We currently do not have sufficient p4d.24xlarge capacity in the Availability Zone you requested (us-east-1d). ...
    [2023-08-28T16:55:46.905] update_node: node a10g-1x-spot-dy-a10g-1x-spot-cr-0-1 reason set to: (Code:LimitedInstanceCapacity)Failure when resuming nodes

The forms (aws-parallelcluster-node src/slurm_plugin): the log format ``%(asctime)s - [%(name)s:%(funcName)s]
- %(levelname)s - %(message)s`` (resume.py, clustermgtd.py logging.basicConfig and logging/*.conf; 3.8 on
``%(asctime)s - %(process)d - [...]``); fleet_manager.py ``"Error in CreateFleet request (%s): %s - %s"``
(request id, ``ErrorCode``, ``ErrorMessage``); instance_manager.py ``"Encountered exception when launching
instances for nodes %s: %s"`` with botocore's ClientError text ``An error occurred (<code>) when calling the
<operation> operation[ (reached max retries: N)]: <message>``, and ``"Failed to launch instances due to
limited EC2 capacity for following nodes: %s"`` (the code it then gives is ``LimitedInstanceCapacity``);
resume.py's reason ``f"(Code:{error_code})Failure when resuming nodes"``, which slurmctld logs as
``update_node: node <n> reason set to: <reason>``; slurm_resources.py ``EC2_ICE_ERROR_CODES``
(InsufficientInstanceCapacity, InsufficientHostCapacity, InsufficientReservedInstanceCapacity,
MaxSpotInstanceCountExceeded, Unsupported, SpotMaxPriceTooLow) which with ``LimitedInstanceCapacity`` are its
"ice-failures": the cloud had no instance to give, not a fault of a node.

Facts: ``cloud_instance_launch_failed`` per EC2 code and node set (``capacity`` for an ice-failure code;
any other code, ``InvalidParameter``, ``VcpuLimitExceeded``, is the same fact with ``capacity`` false: a
configuration or quota the launch broke). The plugin's INFO and DEBUG lines are read without a fact (the program
judged them); its other ERROR lines (``Failed RunInstances request: <id>``, ``Failed to launch following nodes,
setting nodes to down``: a failure whose EC2 code the paste may have cut) and any line of the file no form reads
that says in words that something failed (a slurmctld ``requeue job ... due to failure of node``, an ``error:``)
are ``text_error_line`` facts: recognising the file hides no error, and beside a launch failure the engine
takes them as its echo. Empty input: nothing.
"""
from __future__ import annotations

import re

from stethoscope.facts.kinds.cloud import CloudInstanceLaunchFailed  # noqa: F401 - the fact classes live in facts/kinds
from stethoscope.facts.kinds.steth import TextErrorLine  # noqa: F401
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult

KIND = "cloud_node_launch"

# 2021-05-18 14:05:41,320 - [slurm_plugin.resume:_resume] - ERROR - Failed to launch following nodes, setting nodes to down: (x1) ['gpu1-dy-g4dnxlarge-7']   (aws/aws-parallelcluster#2716)
# 2025-10-29 13:39:59,768 - 8667 - [slurm_plugin.fleet_manager:_launch_instances] - ERROR - JobID 2 - Error in CreateFleet request ...   (aws/aws-parallelcluster-node#676)
_PLUGIN = re.compile(r"^\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - (?:\d{1,10} - )?\[slurm_plugin\.[\w.]{1,64}:\w{1,80}\] - "
                     r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) - (?P<msg>[^\n]*)$")
# ... An error occurred (InsufficientInstanceCapacity) when calling the RunInstances operation (reached max retries: 1): We currently ...
#   (botocore/exceptions.py ClientError: 'An error occurred ({error_code}) when calling the {operation_name} operation{retry_info}: {error_message}')
_CLIENT_ERROR = re.compile(r"\bAn error occurred \((?P<code>\w{1,64})\) when calling the (?P<op>\w{1,64}) operation")
# JobID 253 - Error in CreateFleet request (7654c2d2-e5fe-4d5f-a8bc-7404045f3618): InsufficientInstanceCapacity - We currently ...   (aws/aws-parallelcluster-node#564)
_FLEET = re.compile(r"\bError in (?P<op>CreateFleet) request \([\w-]{0,64}\): (?P<code>\w{1,64}) - ")
# WARNING - Failed to launch instances due to limited EC2 capacity for following nodes: (x2) ['q-dy-a-1', 'q-dy-a-2']   (instance_manager.py's warning)
_LIMITED = re.compile(r"\bFailed to launch instances due to limited EC2 capacity for following nodes\b")
# [2023-08-28T16:55:46.905] update_node: node a10g-1x-spot-dy-a10g-1x-spot-cr-0-1 reason set to: (Code:LimitedInstanceCapacity)Failure when resuming nodes   (aws/aws-parallelcluster#5670)
# [2025-10-30T12:16:05.106] update_node: node compute-dy-cit-10 reason set to: (Code:InsufficientInstanceCapacity)Failure when resuming nodes - Check the slurm_resume log for EC2 error codes   (aws/aws-parallelcluster-node#676)
#    Reason=(Code:InsufficientInstanceCapacity)Failure when resuming nodes [root@2023-01-31T21:24:55]   (scontrol show node; ParallelCluster's own tests)
_REASON = re.compile(r"(?:\bupdate_node: node (?P<node>[\w.-]{1,128}) reason set to: |^\s*Reason=)\(Code:(?P<code>\w{1,64})\)"
                     r"(?P<why>Failure when resuming nodes|Temporarily disabling node due to insufficient capacity)")
#    NodeName=queue1-dy-c-1-1 Arch=x86_64 CoresPerSocket=1   (aws/aws-parallelcluster-node#398: the scontrol block a Reason= line belongs to)
_NODENAME = re.compile(r"^\s*NodeName=(?P<name>[\w.-]{1,128})(?:\s|$)")
# INFO - The following compute resources are in down state due to insufficient capacity: {'compute': {'cit': ComputeResourceFailureEvent(
#   timestamp=..., error_code='InsufficientInstanceCapacity')}}, compute resources will be reset after ...   (aws/aws-parallelcluster-node#676, clustermgtd)
_DOWN_CR = re.compile(r"\bare in down state due to insufficient capacity: ")
_CR_CODE = re.compile(r"error_code='(?P<code>\w{1,64})'")
_CR_NAME = re.compile(r"\{'(?P<queue>[\w-]{1,64})': \{'(?P<cr>[\w-]{1,64})': ComputeResourceFailureEvent\(")
# ... launching instances for nodes (x1) ['gpu1-dy-g4dnxlarge-7']: ...      (print_with_count: "(x<N>) <list>")
_NODES = re.compile(r"\bnodes? (?:\(x\d{1,6}\) )?\[(?P<list>'[\w.-]{1,128}'(?:, '[\w.-]{1,128}'){0,63})")
# We currently do not have sufficient g4dn.xlarge capacity in the Availability Zone you requested (us-east-1a).   (EC2's message)
_WHERE = re.compile(r"\bsufficient (?P<type>[a-z][\w-]{0,15}\.[\w-]{1,24}) capacity in the Availability Zone you requested \((?P<zone>[a-z]{2}-[\w-]{1,32})\)")

#: aws-parallelcluster-node slurm_resources.py EC2_ICE_ERROR_CODES, with LimitedInstanceCapacity its "ice-failures"
#: (clustermgtd.py / cluster_event_publisher.py _LAUNCH_FAILURE_GROUPING)
ICE_CODES = frozenset({"InsufficientInstanceCapacity", "InsufficientHostCapacity", "InsufficientReservedInstanceCapacity",
                       "MaxSpotInstanceCountExceeded", "Unsupported", "SpotMaxPriceTooLow", "LimitedInstanceCapacity"})

# the words of a line that says something failed (unrecognised_text's ERROR_WORDS, narrowed to this file's kinds)
_FAILED = re.compile(r"\b(?:[Ee]rror|ERROR|[Ff]ailed|FAILED|[Ff]ailure|[Ff]atal|FATAL|[Pp]anic|Traceback|[A-Z]\w*(?:Error|Exception)"
                     r"|[Tt]imed out|[Cc]annot|[Cc]ould not|[Uu]nable to|[Nn]ot responding)\b")

_DETECT = re.compile(r"^\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - (?:\d{1,10} - )?\[slurm_plugin\.|\(Code:\w{1,64}\)(?:Failure when resuming|Temporarily disabling)", re.M)


def detect(head: str) -> bool:
    if "slurm_plugin." not in head and "(Code:" not in head:
        return False
    return _DETECT.search(head) is not None


def _nodes(text: str) -> list[str]:
    m = _NODES.search(text)
    return re.findall(r"'([\w.-]{1,128})'", m["list"]) if m else []


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    b = FactBuilder(artefact, result)
    seen: set[tuple[str, str]] = set()
    block_node: str | None = None

    def launch(n: int, code: str, nodes: list[str], op: str | None, msg: str, subject: str | None = None) -> None:
        names = ",".join(nodes[:8])
        if (code, names) in seen:
            return
        seen.add((code, names))
        where = _WHERE.search(msg)
        kind = f"{where['type']} in {where['zone']}" if where else None
        if nodes:
            subject = f"the instance{'s' if len(nodes) > 1 else ''} of node{'s' if len(nodes) > 1 else ''} {names}" \
                + (f" ({kind})" if kind else "")
        elif kind:
            subject = f"a {kind}"
        b.add(CloudInstanceLaunchFailed, n, node=artefact.node_for(nodes[0]) if nodes else None, provider="aws",
              error_code=code, capacity=code in ICE_CODES, node_names=names, instance_type=where["type"] if where else None,
              zone=where["zone"] if where else None, operation=op, subject=subject or "a node's instance", message=msg.strip()[:400])

    for n, line in enumerate(artefact.lines, 1):
        if (m := _NODENAME.match(line)) is not None:
            block_node = m["name"]
        elif not line.strip():
            block_node = None
        if (p := _PLUGIN.match(line)) is not None:
            msg, level = p["msg"], p["level"]
            if (e := _CLIENT_ERROR.search(msg)) is not None:
                launch(n, e["code"], _nodes(msg), e["op"], msg)
            elif (e := _FLEET.search(msg)) is not None:
                launch(n, e["code"], _nodes(msg), e["op"], msg)
            elif _LIMITED.search(msg):
                launch(n, "LimitedInstanceCapacity", _nodes(msg), None, msg)
            elif _DOWN_CR.search(msg) and (c := _CR_CODE.search(msg)) is not None:
                cr = _CR_NAME.search(msg)
                launch(n, c["code"], [], None, msg, f"compute resource {cr['cr']} of queue {cr['queue']}" if cr else None)
            elif level in ("ERROR", "CRITICAL") or (level == "WARNING" and _FAILED.search(msg)):
                # the program's own failure lines without EC2's code (the request id, the nodes it set down, its other
                # errors): kept as unread error lines; beside a launch failure of the file they are its echo
                b.add(TextErrorLine, n, message=line.strip()[:400])
            result.lines_used += 1
        elif "(Code:" in line and (m := _REASON.search(line)) is not None:
            node = m["node"] or block_node
            launch(n, m["code"], [node] if node else [], None, line[m.start("code") - 6:])
            result.lines_used += 1
        elif (e := _CLIENT_ERROR.search(line)) is not None:
            launch(n, e["code"], _nodes(line), e["op"], line[e.start():])
            result.lines_used += 1
        elif _FAILED.search(line):
            # a line of the same paste this reader has no form for (a slurmctld error:, a traceback): kept, never hidden
            b.add(TextErrorLine, n, message=line.strip()[:400])
    return result


#: line signatures (facts/classify.py)
SIGNATURES = (_DETECT,)

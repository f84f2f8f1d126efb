"""NVSentinel's node health events (and the DCGM health codes they quote) wherever an operator pastes them.

NVSentinel's platform connector writes each unhealthy event of its health monitors as one message
(process_node_events.go constructHealthEventMessage): ``ErrorCode:<code> `` per code, ``<EntityType>:<value> ``
per entity (GPU, PCI, GPU_UUID, NVSWITCH...), the monitor's message, then ``Recommended Action=<action>;``; a fatal
event goes into the node condition ``<check>`` (reason ``<check>IsNotHealthy``, several messages joined), a
non-fatal one into a node event of type ``<check>``. Operators meet it in ``kubectl describe node``'s Conditions,
``kubectl get events``, ``-o yaml/json`` dumps and NVSentinel's own logs, so the event is read wherever it sits in
a line. Sample content (NVIDIA/NVSentinel#768's UAT run; its platform-connector and e2e tests)::

    GpuPowerWatchIsNotHealthy Message=ErrorCode:DCGM_FR_CLOCK_THROTTLE_POWER GPU:0 PCI:0000:0f:00.0 GPU_UUID:GPU-8598879c-4839-1709-231e-36a2b2844bca Detected clocks event due to power violation in GPU 0. Monitor the power conditions. This GPU can still perform workload. Recommended Action=NONE;
    ErrorCode:79 gpu:0 XID error occured Recommended Action=NODE_REBOOT;
    ErrorCode:44 GPU:0 Recommended Action=CONTACT_SUPPORT;ErrorCode:45 GPU:0 Recommended Action=NONE;

Facts: ``nvsentinel_health_event`` per event: the check (from ``<check>IsNotHealthy`` or ``checkName`` on the line
or the lines next to it: a yaml/json condition puts its reason one line from its message), the node where
``kubectl get events`` names it (``node/<name>``, else the file's), the codes, a DCGM_FR_*
reason with its component and cause (``knowledge/dcgm.yaml``: the code's row, else the message's, else the health
system of the check), or the Xid of an Xid check (read in the Xid catalogue by the rule), the GPU (index, bus id,
UUID; its nic-health-monitor's ``NIC:<device> NICPort:<port>`` as the HCA and port), the message, and the recommended action with its severity and actions (``knowledge/nvsentinel.yaml``:
NONE is no fault). A message that kubectl or a console wrapped onto the next lines is read as one event (the
lines joined until its ``Recommended Action=``). A healthy condition (``No Health Failures``) says nothing: nothing is made. Empty input: nothing.

The same event also sits in NVSentinel's own module logs as its ``HealthEvent`` message in JSON (its
platform-connectors' ``healthEvents``, the fault-quarantine's event and, escaped one level, its
``quarantineHealthEvent`` node annotation), with the recommended action as the enum's number where Go's
encoding/json wrote it (data-models/protobufs/health_event.proto ``RecommendedAction``)::

    {"level":"INFO","msg":"Successfully got item","module":"platform-connectors",...,"healthEvents":{"version":1,"events":[{"version":1,"agent":"syslog-health-monitor","componentClass":"GPU","checkName":"SysLogsXIDError","isFatal":true,"recommendedAction":15,"errorCode":["13"],"entitiesImpacted":[{"entityType":"PCI","entityValue":"0002:00:00"},...],"nodeName":"kwok-node-0",...}]}}

Each such event is one fact as above (the node its ``nodeName``); an event marked ``"isHealthy":true`` says
nothing. The fields before the event's ``metadata`` are enough, so a line the paste cut later still reads.
"""
from __future__ import annotations

import re
from functools import lru_cache

from stethoscope.facts import knowledge as _knowledge
from stethoscope.facts.ids import try_pci_bus_id
from stethoscope.facts.kinds.dcgm import NvsentinelHealthEvent
from stethoscope.facts.parsers.base import Artefact, FactBuilder, ParseResult
from stethoscope.facts.parsers.dcgm_facts import health_meaning, reason_meaning

KIND = "nvsentinel_event"

# ErrorCode:DCGM_FR_CLOCK_THROTTLE_POWER GPU:0 PCI:0000:0f:00.0 GPU_UUID:GPU-8598... Detected clocks event ... Recommended Action=NONE;
# ErrorCode:79 PCI:0000:ef:00 GPU_UUID:GPU-b5f2... MESSAGE=NVRM: Xid (PCI:0000:ef:00): 79, ... Recommended Action=RESTART_BM;
# ErrorCode:44 GPU:0 Recommended Action=CONTACT_SUPPORT;ErrorCode:45 GPU:0 Recommended Action=NONE;
_EVENT = re.compile(r"ErrorCode:(?P<codes>[^\s;]+(?: ErrorCode:[^\s;]+)*) (?P<rest>[^;]*?) ?Recommended Action=(?P<action>[A-Z][A-Z0-9_]*)")
# GPU:0 PCI:0000:0f:00.0 GPU_UUID:GPU-8598879c-4839-1709-231e-36a2b2844bca       (one entity: type, colon, value)
_ENTITY = re.compile(r"(?P<type>[A-Za-z][A-Za-z0-9_]*):(?P<value>[^\s;]+)(?: |$)")
# GpuPowerWatchIsNotHealthy          reason: GpuXidErrorIsNotHealthy          "checkName": "GpuXidError"
_CHECK = re.compile(r"\b(?P<check>[A-Z][A-Za-z0-9]*?)IsNotHealthy\b|\bcheck_?name\"?\s*[:=]\s*\"?(?P<named>[A-Za-z][A-Za-z0-9]*)", re.I)
# XID error occured          NVRM: Xid (PCI:0000:ef:00): 79          (a numeric code of an unnamed check)
_XID_WORD = re.compile(r"\bXid\b", re.I)
# 2m   GpuPowerWatch   GpuPowerWatchIsNotHealthy   node/gpu-node-1   ErrorCode:...      (kubectl get events: OBJECT names the node)
_NODE = re.compile(r"(?:^|\s)node/(?P<node>[A-Za-z0-9][\w.-]*)\s")
_DETECT = re.compile(r"ErrorCode:\S+ .*Recommended Action=[A-Z]")
# kubectl describe node / a console wraps a long condition message, so an event runs onto the next lines
# (NVIDIA/NVSentinel#1716, a GB300 node's condition, 2026-09-01):
#     "message": "ErrorCode:issm NIC:mlx5_3 NICPort:1 Device mlx5_3 port 1: issm character device missing ... pods cannot open
#   /dev/infiniband/issm* Recommended Action=REPLACE_VM;ErrorCode:issm NIC:mlx5_2 NICPort:1 Device mlx5_2 port 1: ...
# (one event's action, then the next event of the same condition, on a line the wrap began)
_WRAPPED_DETECT = re.compile(r"Recommended Action=[A-Z][A-Z0-9_]*;ErrorCode:\S")
_WRAP = 4  # continuation lines an event's message may run onto before its ``Recommended Action=``
_NEAR = 3  # lines either side where a yaml/json condition's reason sits from its message
# {"version":1,"agent":"gpu-health-monitor","componentClass":"GPU","checkName":"GpuXidError","isFatal":true,
#  "message":"GPU has fallen off the bus (XID 79). Node requires reboot.","recommendedAction":15,"errorCode":["DCGM_FR_GPU_FALLEN_OFF_BUS"],
#  "entitiesImpacted":[{"entityType":"GPU","entityValue":"0"},{"entityType":"PCI","entityValue":"0002:00:00.0"}],...,"nodeName":"10.0.15.233"
# (one event of a HealthEvent in JSON: its check name starts it; the fields below are read up to the next one)
_JSON_EVENT = re.compile(r'"checkName":\s*"(?P<check>[A-Za-z][A-Za-z0-9]*)"')
_JSON_DETECT = re.compile(r'\\?"checkName\\?":\s*\\?"[A-Za-z].*\\?"recommendedAction\\?":')
# "recommendedAction":15        "recommendedAction":"RESTART_VM"
_JSON_ACTION = re.compile(r'"recommendedAction":\s*(?:(?P<num>\d+)|"(?P<name>[A-Z][A-Z0-9_]*)")')
# "errorCode":["DCGM_FR_UNCONTAINED_ERROR"]        "errorCode":["13"]
_JSON_CODES = re.compile(r'"errorCode":\s*\[(?P<codes>[^\]]*)\]')
# {"entityType":"PCI","entityValue":"0002:00:00.0"}
_JSON_ENTITY = re.compile(r'\{"entityType":\s*"(?P<type>[^"]+)",\s*"entityValue":\s*"(?P<value>[^"]*)"\}')
# "message":"GPU had an uncontained error (XID 95) Drain the GPU and reset it or reboot the node."
_JSON_MESSAGE = re.compile(r'"message":\s*"(?P<message>(?:[^"\\]|\\.)*)"')
_JSON_NODE = re.compile(r'"nodeName":\s*"(?P<node>[A-Za-z0-9][\w.-]*)"')
_JSON_HEALTHY = re.compile(r'"isHealthy":\s*true')
#: the RecommendedAction enum's numbers (NVSentinel data-models/protobufs/health_event.proto), as encoding/json writes them
_ACTION_NUMBERS = {0: "NONE", 2: "COMPONENT_RESET", 5: "CONTACT_SUPPORT", 6: "RUN_FIELDDIAG", 15: "RESTART_VM",
                   24: "RESTART_BM", 25: "REPLACE_VM", 26: "RUN_DCGMEUD", 39: "RESTART_APP", 99: "UNKNOWN"}


@lru_cache(maxsize=1)
def _knowledge_rows() -> tuple[dict, dict]:
    doc = _knowledge.load("nvsentinel.yaml").model_dump()
    checks = {name: row for row in doc["checks"] for name in row["names"]}
    return doc["actions"], checks


def detect(text: str) -> bool:
    return ("Recommended Action=" in text and (_DETECT.search(text) is not None or _WRAPPED_DETECT.search(text) is not None)) or (
        "checkName" in text and _JSON_DETECT.search(text) is not None)


def _check_near(lines: list[str], n: int) -> str | None:
    for k in [n] + [n + d for i in range(1, _NEAR + 1) for d in (i, -i)]:
        if 1 <= k <= len(lines) and (m := _CHECK.search(lines[k - 1])) is not None:
            return m["check"] or m["named"]
    return None


def parse(artefact: Artefact) -> ParseResult:
    result = ParseResult()
    fb = FactBuilder(artefact, result)
    lines = artefact.lines
    n = 0
    while n < len(lines):
        n += 1
        line, used = _record(lines, n)
        events = list(_EVENT.finditer(line)) if "Recommended Action=" in line else []
        if not events:
            if "checkName" in line and _json_events(fb, n, line):
                result.lines_used += 1
            continue
        check = _check_near(lines, n)
        obj = _NODE.search(line, 0, events[0].start())
        for m in events:
            _event(fb, n, check, m, obj["node"] if obj else None)
        result.lines_used += used
        n += used - 1
    return result


def _open_tail(text: str) -> bool:
    """Whether the last event that ``text`` opens (``ErrorCode:``) has no ``Recommended Action=`` after it yet."""
    at = text.rfind("ErrorCode:")
    return at != -1 and text.find("Recommended Action=", at) == -1


def _record(lines: list[str], n: int) -> tuple[str, int]:
    """Line ``n`` with the lines a wrapped event runs onto (each joined by one space, its indent dropped) while
    its last event is still open, up to ``_WRAP`` of them and only when one of them closes it; how many lines
    that is. A line that opens no event, or closes every one it opens, is itself (1)."""
    text = lines[n - 1]
    if "ErrorCode:" not in text or not _open_tail(text):
        return text, 1
    joined, k = text, n
    while k < len(lines) and k - n < _WRAP:
        nxt = lines[k].strip()
        if not nxt or "ErrorCode:" in nxt.split("Recommended Action=", 1)[0]:
            break  # a blank line, or a new event before this one closed: not a wrap
        joined, k = joined.rstrip() + " " + nxt, k + 1
        if not _open_tail(joined):
            return joined, k - n + 1
    # the last event never closed: read what closed on line n alone
    return (joined, k - n + 1) if "Recommended Action=" in joined[text.rfind("ErrorCode:"):] else (text, 1)


def _json_events(fb: FactBuilder, n: int, line: str) -> int:
    """The HealthEvents of a JSON line (escaped one level inside an annotation's string, or not); how many were read."""
    text = line.replace('\\"', '"') if '\\"checkName' in line else line
    starts = [m for m in _JSON_EVENT.finditer(text)]
    read = 0
    for i, m in enumerate(starts):
        # the event's object opens before its checkName ({"version":1,"agent":...,"checkName":...)
        begin = text.rfind("{", starts[i - 1].end() if i else 0, m.start())
        part = text[max(begin, 0):starts[i + 1].start() if i + 1 < len(starts) else len(text)]
        act = _JSON_ACTION.search(part)
        if act is None or _JSON_HEALTHY.search(part):
            continue
        action = act["name"] or _ACTION_NUMBERS.get(int(act["num"]), "UNKNOWN")
        codes_m = _JSON_CODES.search(part)
        codes = [c.strip().strip('"') for c in codes_m["codes"].split(",")] if codes_m else []
        msg = _JSON_MESSAGE.search(part)
        node = _JSON_NODE.search(part)
        entities = [(e["type"], e["value"]) for e in _JSON_ENTITY.finditer(part)]
        _emit(fb, n, m["check"], [c for c in codes if c] or [""], entities,
              msg["message"].replace('\\"', '"') if msg else "", action, node["node"] if node else None)
        read += 1
    return read


def _event(fb: FactBuilder, n: int, check: str | None, m: re.Match, node: str | None) -> None:
    codes = m["codes"].split(" ErrorCode:")
    rest = m["rest"]
    entities = []
    while (e := _ENTITY.match(rest)) is not None:
        entities.append((e["type"], e["value"]))
        rest = rest[e.end():]
    _emit(fb, n, check, codes, entities, rest.strip(), m["action"], node)


def _emit(fb: FactBuilder, n: int, check: str | None, codes: list[str], entities: list[tuple[str, str]],
          message: str, action: str, node: str | None) -> None:
    actions, checks = _knowledge_rows()
    gpu = pci = uuid = switch = nic = nic_port = None
    for typ, val in entities:
        typ = typ.upper()
        if typ == "GPU" and val.isdigit():
            gpu = int(val)
        elif typ == "GPU_UUID" or (typ == "GPU" and val.startswith("GPU-")):
            uuid = val
        elif typ == "PCI":
            pci = try_pci_bus_id(val)
        elif typ == "NVSWITCH":
            switch = val
        elif typ == "NIC":  # the nic-health-monitor's entities: NIC:mlx5_3 NICPort:1
            nic = val
        elif typ == "NICPORT":
            nic_port = int(val) if val.isdigit() else None
    row = checks.get(check or "", {})
    reason = next((c for c in codes if c.startswith("DCGM_FR_")), None)
    xid = None
    if reason is None and codes[0].isdigit() and (row.get("xid") or (not row and _XID_WORD.search(message))):
        xid = int(codes[0])
    component = cause = None
    if xid is None:
        if reason is not None:
            component, cause = reason_meaning(reason)
        if component is None:
            _, component, cause, _ = health_meaning(row.get("health_system") or "", message)
        if component is None:
            component, cause = row.get("component"), row.get("cause")
    act = actions.get(action) or actions["UNKNOWN"]
    name = pci or (f"GPU {gpu}" if gpu is not None else None) or uuid or (f"NVSwitch {switch}" if switch else None)
    fb.add(NvsentinelHealthEvent, n, node=node, check=check, codes=",".join(codes), reason=reason, xid=xid, gpu=gpu,
           pci_bus_id=pci, gpu_uuid=uuid, gpu_name=name or "the GPU NVSentinel named", hca=nic, port=nic_port,
           message=message[:400],
           action=action, fault=act["fault"], severity=act["severity"], actions=",".join(act["actions"]),
           component=component, cause=cause)


# \"nodeName\":\"aks-gpu-12493808-vmss00000l\"        (the annotation's event, escaped one level)
_JSON_NODE_ANY = re.compile(r'\\?"nodeName\\?":\s*\\?"(?P<node>[A-Za-z0-9][\w.-]*)')
# "message":"MESSAGE=NVRM: Xid ...        \"message\":\"...        (where an event's message string opens)
_JSON_MESSAGE_OPEN = re.compile(r'(?P<esc>\\?)"message\\?":\s*\\?"')


def _string_end(line: str, start: int, escaped: bool) -> int:
    """Where the JSON string that runs from ``start`` closes (-1: not on the line): the first quote no backslash
    escapes, or, for a string escaped one level inside another, the first escaped quote."""
    if escaped:
        return line.find('\\"', start)
    end = start
    while (end := line.find('"', end)) > 0 and line[end - 1] == "\\":
        end += 1
    return end


def event_node(line: str, at: int) -> tuple[str | None, int] | None:
    """(the node parse() gives the NVSentinel event whose message holds position ``at`` of ``line``, where that
    message ends), or None when ``at`` is in no event's message: a kernel line an event quotes is the event's
    evidence (kernel_log reads it on that node, up to there). The node is the event's ``nodeName`` (JSON: the
    fields after its message), or ``kubectl get events``' ``node/<name>`` before it, else None (the file's)::

        {...,"checkName":"SysLogsXIDError","message":"MESSAGE=NVRM: Xid (PCI:0002:00:00): 13, ...","nodeName":"kwok-node-0",...}
        ErrorCode:79 PCI:0000:ef:00 GPU_UUID:GPU-b5f2... MESSAGE=NVRM: Xid (PCI:0000:ef:00): 79, ... Recommended Action=RESTART_BM;
    """
    if "checkName" in line and _JSON_DETECT.search(line) is not None:
        opened = None
        for opened in _JSON_MESSAGE_OPEN.finditer(line, 0, at):
            pass
        if opened is None or line.rfind('"checkName', 0, at) == -1:
            return None
        escaped = opened["esc"] == "\\"
        closed = _string_end(line, opened.end(), escaped)
        if -1 < closed < at:  # the message closed before ``at``
            return None
        node = _JSON_NODE_ANY.search(line, at) or next(_JSON_NODE_ANY.finditer(line, 0, at), None)
        return (node["node"] if node else None), (len(line) if closed == -1 else closed)
    if "Recommended Action=" in line:
        for m in _EVENT.finditer(line):
            if m.start() < at < m.end():
                obj = _NODE.search(line, 0, m.start())
                return (obj["node"] if obj else None), m.start("action") - len("Recommended Action=")
    return None


#: the line signatures this reader owns: one of them occurs in any text detect() accepts
#: (all readers' signatures are matched in one pass: facts/classify.py)
SIGNATURES = (_DETECT, _WRAPPED_DETECT, _JSON_DETECT)

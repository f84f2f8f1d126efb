"""The schemas of knowledge/redfish_message_ids.yaml and ipmi_sel_events.yaml: what a BMC's Redfish log entry and
System Event Log entry mean.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from stethoscope.facts.knowledge.base import ActionId, CauseId, ComponentId, Record as _M, Severity


# --- redfish_message_ids.yaml: which SEL event a Redfish LogEntry's MessageId (or SEL code) is ------

class RedfishMessageEntry(_M):
    #: a MessageId's registry prefix and key, the version cut ("OpenBMC.PowerSupplyFailed" for
    #: "OpenBMC.0.1.PowerSupplyFailed"); or, for a SEL entry whose MessageId is a vendor's hex
    #: code (iDRAC "1ffff"), its Redfish SensorType and EntryCode ("Power Supply / Converter",
    #: ["Redundancy Lost"])
    message_ids: list[str] = []
    sensor_type: str | None = None
    entry_codes: list[str] = []
    #: a vendor's message text as its log prints it without a MessageId (HPE IML "Uncorrectable Machine
    #: Check Exception (Board 0, ...)"): the words before the detail in parentheses, compared without case
    texts: list[str] = []
    #: for a registry message about any resource (DMTF ResourceEvent): the kind of part its arguments
    #: name (power_supply, fan, memory, processor); the entry matches only an entry about such a part
    part: Literal["power_supply", "fan", "memory", "processor"] | None = None
    event: str = Field(pattern=r"^[a-z][a-z0-9_]*$")  # the event id of ipmi_sel_events.yaml
    source: str = Field(min_length=5)

    @model_validator(mode="after")
    def _keyed(self) -> "RedfishMessageEntry":
        if not self.message_ids and not (self.sensor_type and self.entry_codes) and not self.texts:
            raise ValueError(f"{self.event}: an entry names message ids, message texts or a sensor type with entry codes")
        return self


class RedfishMessageIds(_M):
    source: str = Field(min_length=10)
    #: Redfish LogEntry SensorType (DMTF LogEntry schema, from IPMI's table 42-3) -> ipmitool's sensor type
    sensor_types: dict[str, str]
    messages: list[RedfishMessageEntry] = Field(min_length=1)

    def event_of(self, message_id: str | None, sensor_type: str | None, entry_code: str | None,
                 part: str | None = None) -> str | None:
        """``part``: the kind of part the entry's message or arguments name, for the entries keyed by one."""
        idx = self.__dict__.get("_idx")
        if idx is None:
            idx = {}
            for m in self.messages:
                for k in m.message_ids:
                    idx[("id", k.lower()) if m.part is None else ("id", k.lower(), m.part)] = m.event
                for c in m.entry_codes:
                    idx[("sel", (m.sensor_type or "").lower(), c.lower())] = m.event
            self.__dict__["_idx"] = idx
        if message_id:
            hit = idx.get(("id", message_id.lower()))  # a D-Bus error name, whole
            if hit:
                return hit
            parts = message_id.split(".")
            if len(parts) >= 2:
                key = f"{parts[0]}.{parts[-1]}".lower()
                hit = idx.get(("id", key)) or (idx.get(("id", key, part)) if part else None)
                if hit:
                    return hit
        if sensor_type and entry_code:
            return idx.get(("sel", sensor_type.lower(), entry_code.lower()))
        return None

    def event_of_text(self, message: str) -> str | None:
        """The event a vendor's message text names (``texts``): the longest listed text the message
        starts with, case and runs of blanks ignored, followed by its end, " (", "." or " -"."""
        norm = " ".join(message.split()).lower()
        best: tuple[int, str] | None = None
        for m in self.messages:
            for t in m.texts:
                t = " ".join(t.split()).lower()
                if norm.startswith(t) and (len(norm) == len(t) or norm[len(t)] in " .(-:,") \
                        and (best is None or len(t) > best[0]):
                    best = (len(t), m.event)
        return best[1] if best else None


# --- ipmi_sel_events.yaml: what a BMC System Event Log entry means -----------------------------

class IpmiSelEventEntry(_M):
    event: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    sensor_type: str = Field(min_length=2)  # ipmitool's sensor type string ("Power Supply")
    descriptions: list[str] = Field(min_length=1)  # ipmitool's event strings; "*": all of the type
    severity: Severity
    cause: CauseId | None = None  # None: a record of normal operation (severity info)
    component: ComponentId | None = None
    actions: list[ActionId] = []
    meaning: str = Field(min_length=10)

    @model_validator(mode="after")
    def _fault_or_record(self) -> "IpmiSelEventEntry":
        if (self.cause is None) != (self.severity == "info"):
            raise ValueError(f"{self.event}: a fault has a cause and severity above info, a record neither")
        if self.cause is not None and (self.component is None or not self.actions):
            raise ValueError(f"{self.event}: a fault names its component and actions")
        return self


class IpmiSelEvents(_M):
    source: str = Field(min_length=10)
    events: list[IpmiSelEventEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "IpmiSelEvents":
        seen: dict[tuple[str, str], str] = {}
        for e in self.events:
            for d in e.descriptions:
                key = (e.sensor_type.lower(), " ".join(d.split()).lower())
                if key in seen:
                    raise ValueError(f"{e.sensor_type} / {d}: listed by {seen[key]} and {e.event}")
                seen[key] = e.event
        names = [e.event for e in self.events]
        if len(set(names)) != len(names):
            raise ValueError("an event id is listed twice")
        return self

    def entry(self, sensor_type: str | None, description: str) -> IpmiSelEventEntry | None:
        """The entry of a SEL event by ipmitool's sensor type and description (case and
        surrounding blanks ignored, the " (detail)" suffix already cut off)."""
        if sensor_type is None:
            return None
        index = self._index()
        st = sensor_type.lower()
        return index.get((st, " ".join(description.split()).lower())) or index.get((st, "*"))

    def _index(self) -> dict[tuple[str, str], IpmiSelEventEntry]:
        idx = self.__dict__.get("_idx")
        if idx is None:
            idx = {(e.sensor_type.lower(), " ".join(d.split()).lower()): e for e in self.events for d in e.descriptions}
            self.__dict__["_idx"] = idx
        return idx

    def sensor_types(self) -> list[str]:
        return sorted({e.sensor_type for e in self.events}, key=len, reverse=True)

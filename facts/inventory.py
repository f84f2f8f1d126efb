"""The cluster inventory: what artefacts cannot say (which switch port each HCA port is
cabled to, the rate it should run at, each host's addresses). Validated by pydantic.

Example::

    kind: steth-inventory
    hosts:
      node01:
        addresses: [10.0.0.1]
        ports:
          mlx5_0/1: {switch: leaf01, switch_port: 1, rate_gbps: 200}
    switches:
      leaf01: {uplinks: [spine01]}
"""
from __future__ import annotations

import re

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

_PORT_KEY = re.compile(r"^[A-Za-z][\w-]*/\d+$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CabledPort(_Strict):
    switch: str | None = None
    switch_port: int | None = None
    rate_gbps: float | None = Field(default=None, gt=0)


class Host(_Strict):
    addresses: list[str] = Field(default_factory=list)
    gpus: int | None = Field(default=None, ge=0)
    ports: dict[str, CabledPort] = Field(default_factory=dict)

    @field_validator("ports")
    @classmethod
    def _port_keys(cls, ports: dict[str, CabledPort]) -> dict[str, CabledPort]:
        for key in ports:
            if not _PORT_KEY.match(key):
                raise ValueError(f"port key {key!r} is not 'hca/port' (e.g. mlx5_0/1)")
        return ports


class Switch(_Strict):
    uplinks: list[str] = Field(default_factory=list)


class Inventory(_Strict):
    kind: str = Field(pattern=r"^steth-inventory$")
    hosts: dict[str, Host] = Field(default_factory=dict)
    switches: dict[str, Switch] = Field(default_factory=dict)


class InventoryError(ValueError):
    pass


def load_inventory(text: str, path: str = "inventory") -> Inventory:
    """Parse and validate; raises InventoryError with a one-line reason."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InventoryError(f"{path}:{(mark.line + 1) if mark else 0}: not YAML ({getattr(exc, 'problem', exc)})") from None
    try:
        return Inventory.model_validate(data)
    except Exception as exc:  # pydantic.ValidationError
        errs = getattr(exc, "errors", None)
        if errs:
            e = errs()[0]
            raise InventoryError(f"{path}: {'.'.join(map(str, e['loc']))}: {e['msg']}") from None
        raise InventoryError(f"{path}: {exc}") from None

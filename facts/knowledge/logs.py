"""The schemas of knowledge/kernel_messages.yaml, torch_warnings.yaml, process_names.yaml and
gpu_driver_modules.yaml: which lines of the kernel's and PyTorch's logs say an error, and the names that tell
whose they are.

Part of :mod:`stethoscope.facts.knowledge`, which re-exports every name (issue 12)."""
from __future__ import annotations

import fnmatch
import re
from functools import cached_property
from typing import Annotated

from pydantic import AfterValidator, Field, model_validator

from stethoscope.facts.knowledge.base import Record as _M


# --- kernel_messages.yaml: which unread kernel records say an error --------------------------

def _regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None
    return value


class KernelSubsystem(_M):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    match: Annotated[str, AfterValidator(_regex)]


class KernelBenign(_M):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    sample: str = Field(min_length=10)  # a real record (or its form as the source prints it, marked CONSTRUCTED)
    match: Annotated[str, AfterValidator(_regex)]
    meaning: str = Field(min_length=10)
    source: str = Field(min_length=10)

    @model_validator(mode="after")
    def _sample_matches(self):
        if re.search(self.match, _kernel_message(self.sample)) is None:
            raise ValueError(f"benign {self.id}: match does not match its sample")
        return self


def _kernel_message(line: str) -> str:
    """A sample's message: its dmesg stamp off."""
    return re.sub(r"^\s*\[[^\]]{1,40}\]\s*", "", line)


class KernelMessages(_M):
    source: str = Field(min_length=20)
    words: list[str] = Field(min_length=1)
    subsystems: list[KernelSubsystem] = Field(min_length=1)
    benign: list[KernelBenign] = Field(default_factory=list)


class TorchWarning(_M):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    match: str = Field(min_length=1)
    benign: bool = False
    # PyTorch's Python warnings (warnings.warn) whose message starts on the line below CPython's
    # "<file>:<line>: <Category>:" header, or is pasted without it: the text alone is PyTorch's
    bare: bool = False
    meaning: str
    source: str


class TorchWarnings(_M):
    source: str
    warnings: list[TorchWarning]


# --- process_names.yaml -------------------------------------------------------------------

class SharedProcessName(_M):
    pattern: str = Field(min_length=1, max_length=40)
    why: str


class ProcessNames(_M):
    source: str
    shared: list[SharedProcessName] = Field(min_length=1)

    @cached_property
    def _compiled(self) -> re.Pattern:
        return re.compile("|".join(fnmatch.translate(s.pattern) for s in self.shared))

    def is_shared(self, name: str) -> bool:
        """Whether many different programs run under ``name`` (an interpreter, a shell, a framework's thread)."""
        return self._compiled.match(name) is not None


# --- gpu_driver_modules.yaml ---------------------------------------------------------------

class GpuDriverModule(_M):
    #: as the kernel prints it in %pS and "Modules linked in:": the file name with '-' as '_'
    name: str = Field(pattern=r"^[a-z0-9_]{1,56}$")
    what: str = Field(min_length=5)


class GpuDriverModules(_M):
    source: str = Field(min_length=20)
    modules: list[GpuDriverModule] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "GpuDriverModules":
        names = [m.name for m in self.modules]
        if dup := sorted({n for n in names if names.count(n) > 1}):
            raise ValueError(f"modules: listed twice: {dup}")
        return self

    @cached_property
    def names(self) -> frozenset[str]:
        return frozenset(m.name for m in self.modules)

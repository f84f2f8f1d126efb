"""YAML in one place: always the safe loader (no tags, no code), libyaml's C version when
the installed PyYAML has it (the pure-Python one dominated start-up time)."""
from __future__ import annotations

from typing import Any

import yaml

SafeLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - SafeLoader / CSafeLoader only


def load_with_nodes(text: str) -> tuple[Any, yaml.Node | None]:
    """Data and its node tree (for line numbers) from one parse."""
    loader = SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return data, node

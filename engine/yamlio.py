"""The safe YAML loader lives in the lowest layer (:mod:`stethoscope.facts.yamlio`): facts
never import the engine. Re-exported here for the engine's modules."""
from stethoscope.facts.yamlio import SafeLoader, load_with_nodes, safe_load  # noqa: F401

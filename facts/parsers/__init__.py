"""The readers, one module per artefact kind (facts/registry.py finds them). Their module-level
``re.compile`` calls give patterns compiled on first use (facts/lazy_re.py: start-up)."""
from stethoscope.facts.lazy_re import install as _lazy_patterns

_lazy_patterns()

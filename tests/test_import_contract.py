"""The layers of the package (issue 12): facts never import the engine or the CLI, only the
session module imports durable-rules, and nothing below cli/ imports the CLI.

Read from the source with ``ast`` (imports inside functions count too), so a lazy import
cannot slip past the contract."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"facts": "stethoscope.facts", "engine": "stethoscope.engine", "cli": "stethoscope.cli"}


def _imports(path: Path, package: str) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the module's package
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                out.add(f"{base}.{node.module}" if node.module else base)
            elif node.module:
                out.add(node.module)
                out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def _modules():
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            sub = ".".join(path.relative_to(ROOT / folder).with_suffix("").parts[:-1])
            yield folder, path, package + (f".{sub}" if sub else "")


def _hits(names: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in prefixes))


def test_facts_never_import_the_engine_or_the_cli():
    bad = {str(p.relative_to(ROOT)): _hits(_imports(p, pkg), ("stethoscope.engine", "stethoscope.cli"))
           for folder, p, pkg in _modules() if folder == "facts"}
    assert not {k: v for k, v in bad.items() if v}


def test_only_the_session_module_imports_durable():
    users = {str(p.relative_to(ROOT)) for _, p, pkg in _modules()
             if _hits(_imports(p, pkg), ("durable", "durable_rules_engine"))}
    assert users == {"engine/ruleengine/session.py"}


def test_nothing_below_the_cli_imports_it():
    bad = {str(p.relative_to(ROOT)): _hits(_imports(p, pkg), ("stethoscope.cli",))
           for folder, p, pkg in _modules() if folder != "cli"}
    assert not {k: v for k, v in bad.items() if v}


def test_no_module_imports_another_modules_private_names():
    """A name with a leading underscore is its module's own: what another module needs is public
    (issue 12: rdma_path took ``_degraded_ports`` and ``_finding`` from the localiser)."""
    bad = []
    for folder, p, pkg in _modules():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("stethoscope."):
                bad += [f"{p.relative_to(ROOT)}: {a.name} from {node.module}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
    assert not bad


#: engine/ sub-packages by job, and the ones each may not import (the layers of issue 12): the
#: rule engine knows no source, summary or localiser; localisation knows only findings and the
#: vocabulary; summaries and catalogues know no source (live, patrol) and not the pipeline
LAYERS = {
    "ruleengine": ("pipeline", "combine", "localise", "live", "patrol", "catalogues", "baselines"),
    "localise": ("pipeline", "combine", "live", "patrol", "catalogues", "baselines", "ruleengine"),
    "combine": ("pipeline", "live", "patrol"),
    "catalogues": ("pipeline", "live", "patrol", "localise"),
    "baselines": ("live", "patrol", "localise", "combine"),
}


def test_engine_sub_packages_keep_their_layers():
    bad = {}
    for folder, p, pkg in _modules():
        if folder != "engine" or pkg.count(".") < 2:
            continue
        job = pkg.split(".")[2]
        banned = tuple(f"stethoscope.engine.{b}" for b in LAYERS.get(job, ()))
        if hits := _hits(_imports(p, pkg), banned):
            bad[str(p.relative_to(ROOT))] = hits
    assert not bad


#: imports a fact class makes inside a method, when it is used: nccl_cuda_failure's validator
#: names the CUDA error from knowledge/cuda_errors.yaml (facts built from rule-test YAML need it too); gpu.py's
#: GpuPower stamps knowledge/gpu_power.yaml's implausible_draw_to_limit beside the draw_to_limit it computes
KINDS_LAZY_IMPORTS = {"facts/kinds/nccl.py": {"stethoscope.facts.parsers", "stethoscope.facts.parsers.cuda_error_catalogue"},
                      "facts/kinds/gpu.py": {"stethoscope.facts", "stethoscope.facts.knowledge"}}


def test_fact_kinds_import_only_the_model_ids_and_each_other():
    """facts/kinds holds every fact class (issue 12's layout): it imports from the package only
    facts.model, facts.ids and other kinds modules, never a parser or the engine, so a parser and
    the engine can both import any kind without a cycle (KINDS_LAZY_IMPORTS: the one exception,
    inside a validator)."""
    allowed = ("stethoscope.facts.model", "stethoscope.facts.ids", "stethoscope.facts.kinds")
    bad = {}
    for folder, p, pkg in _modules():
        if pkg != "stethoscope.facts.kinds":
            continue
        rel = str(p.relative_to(ROOT))
        names = {n for n in _imports(p, pkg) if n.startswith("stethoscope")} - KINDS_LAZY_IMPORTS.get(rel, set())
        if hits := sorted(n for n in names if not any(n == a or n.startswith(a + ".") for a in allowed)):
            bad[rel] = hits
        top = ast.parse(p.read_text(encoding="utf-8")).body  # and never at import time
        assert not [n for n in top if isinstance(n, ast.ImportFrom) and (n.module or "") in KINDS_LAZY_IMPORTS.get(rel, ())]
    assert not bad

"""Every knowledge file has a schema and validates (issue 12: "the knowledge schemas are tested").

facts/knowledge/ is the one loader of knowledge/**/*.yaml. These tests check that each shipped
file matches its pydantic schema, that a typo'd key or a wrong type in a copy fails with a
message naming the file and the key, and that an id the vocabulary does not know is caught.
"""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from stethoscope.facts import knowledge

FILES = knowledge.files()
RULES = Path(__file__).resolve().parents[1] / "rules"


def test_there_are_knowledge_files():
    assert "taxonomy.yaml" in FILES and any(f.startswith("cases/") for f in FILES)


@pytest.mark.parametrize("name", FILES)
def test_every_knowledge_file_has_a_schema_and_validates(name):
    knowledge.schema_for(name)
    model = knowledge.load(name)
    assert isinstance(model, knowledge.schema_for(name))


def test_every_schema_has_a_file():
    stale = [p for p in knowledge.SCHEMAS if not any(knowledge.schema_for(f) is knowledge.SCHEMAS[p] for f in FILES)]
    assert not stale, f"SCHEMAS entries without a knowledge file: {stale}"


def test_a_file_without_a_schema_is_named():
    with pytest.raises(knowledge.KnowledgeError, match=r"knowledge/new_table.yaml: no schema"):
        knowledge.schema_for("new_table.yaml")


def _copy(tmp_path: Path, name: str, mutate) -> Path:
    data = yaml.safe_load(knowledge.text(name))
    mutate(data)
    path = tmp_path / Path(name).name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("name, mutate, key, why", [
    ("ib_counters.yaml", lambda d: d["counters"][0].update(limit_per_huor=d["counters"][0].pop("limit_per_hour")),
     "counters.0.limit_per_huor", "Extra inputs are not permitted"),
    ("ib_counters.yaml", lambda d: d["counters"][1].update(limit_per_hour="many"),
     "counters.1.limit_per_hour", "valid integer"),
    ("coverage.yaml", lambda d: d["kinds"]["kernel_log"].update(covres=["gpu"]),
     "kinds.kernel_log.covres", "Extra inputs are not permitted"),
    ("coverage.yaml", lambda d: d["kinds"]["ibstat"]["checks"].update(ib_port=["gpu"]),
     "kinds.ibstat", "checks names components the kind does not cover"),
    ("nic_line_rate.yaml", lambda d: d.pop("min_ratio"), "min_ratio", "Field required"),
    ("nvlink_expected.yaml", lambda d: d["products"][0].update(form="pcie"), "products.0.form", "'sxm' or 'bridge'"),
    ("taxonomy.yaml", lambda d: d.update(severities=["info", "warning", "fatal", "critical"]), "severities", "the order is the rank"),
    ("xid74_workflow.yaml", lambda d: d["groups"][0].update({"class": "ignroe"}), "", "ignroe"),
    ("nv_status_codes.yaml", lambda d: d["status_codes"][0].update(name="OK"), "status_codes.0.name", "should match pattern"),
    ("localisation.yaml", lambda d: d["pairwise"].update(min_pairs=2), "pairwise.min_pairs", "greater than or equal to 3"),
    ("localisation.yaml", lambda d: d["common_cause"].update(min_severity="severe"), "common_cause.min_severity", "'info', 'warning'"),
    # a module named as its file is, not as the kernel prints it (%pS and "Modules linked in:" use underscores)
    ("gpu_driver_modules.yaml", lambda d: d["modules"][1].update(name="nvidia-uvm"), "modules.1.name", "should match pattern"),
    ("gpu_driver_modules.yaml", lambda d: d["modules"].append(dict(d["modules"][0])), "modules", "listed twice: ['nvidia']"),
])
def test_wrong_key_or_type_in_a_copy_names_file_and_key(tmp_path, name, mutate, key, why):
    path = _copy(tmp_path, name, mutate)
    with pytest.raises(knowledge.KnowledgeError) as exc:
        knowledge.load_path(path)
    msg = str(exc.value)
    assert str(path) in msg and key in msg and why in msg, msg


def test_a_case_copy_is_checked_as_a_case(tmp_path):
    src = next(f for f in FILES if f.startswith("cases/"))
    (tmp_path / "cases").mkdir()
    path = _copy(tmp_path / "cases", src, lambda d: d.update(root_cuase=d.pop("root_cause")))
    with pytest.raises(knowledge.KnowledgeError, match=r"root_cuase: Extra inputs are not permitted"):
        knowledge.load_path(path)


def test_yaml_syntax_error_names_the_file(tmp_path):
    path = tmp_path / "dcgm.yaml"
    path.write_text("tests: [\n", encoding="utf-8")
    with pytest.raises(knowledge.KnowledgeError, match=r"dcgm.yaml: not valid YAML"):
        knowledge.load_path(path)


def _set(data, path: tuple, value):
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


# an id the vocabulary lacks, in each field of a shipped file that names one
BAD_IDS = [
    ("ib_counters.yaml", ("counters", 0, "cause"), "ib_link_eror", "unknown cause 'ib_link_eror'"),
    ("xid.yaml", ("xids", 78, "cause"), "gpu_fell_of_bus", "unknown cause"),
    ("xid.yaml", ("xids", 3, "actions"), ["REBOOT"], "unknown action 'REBOOT'"),
    ("xid.yaml", ("sxids", 0, "component"), "nvswitch", "unknown component 'nvswitch'"),
    ("xid_nvrm_messages.yaml", ("messages", 0, "cause"), "nope", "unknown cause"),
    ("xid74_workflow.yaml", ("classes", "link_hardware", "actions"), ["RESEAT"], "unknown action"),
    ("xid_judgements.yaml", ("recovery_actions", "Reset", "cause"), "nope", "recovery_actions.entries.Reset.cause: unknown cause"),
    ("xid_judgements.yaml", ("escalate_on_recurrence_causes", 0), "nope", "unknown cause"),
    ("cuda_errors.yaml", ("errors", 0, "component"), "app", "unknown component 'app'"),
    ("cuda_error_judgements.yaml", ("default", "actions"), ["FIX_APP"], "unknown action 'FIX_APP'"),
    ("dcgm.yaml", ("tests", 0, "cause"), "memory_fault", "unknown cause"),
    ("coverage.yaml", ("kinds", "kernel_log", "component"), "kernel", "unknown component 'kernel'"),
    ("coverage.yaml", ("healthy_needs_any", 0), "gpus", "unknown component 'gpus'"),
    ("coverage.yaml", ("kinds", "ibstat", "checks"), {"ib_prot": ["network"]}, "unknown fact kind 'ib_prot'"),
    ("fact_polarity.yaml", ("kinds", "xid_event", "component"), "gpuu", "unknown component 'gpuu'"),
    ("nccl_known_issues.yaml", ("symptoms", "gdr_disabled", "fact"), "nccl_gdr_stat", "unknown fact kind 'nccl_gdr_stat'"),
    ("nccl_known_issues.yaml", ("issues", 0, "symptom"), "gdr_off", "unknown symptom(s) ['gdr_off']"),
    ("localisation.yaml", ("common_cause", "node_components", 0), "power", "unknown component 'power'"),
    ("localisation.yaml", ("common_cause", "node_causes", 0), "gpu_fell_of_bus", "unknown cause 'gpu_fell_of_bus'"),
    ("localisation.yaml", ("pairwise", "host", "actions"), ["RESEAT"], "unknown action 'RESEAT'"),
]


@pytest.mark.parametrize("name, path, value, why", BAD_IDS, ids=[f"{b[0]}:{'.'.join(map(str, b[1]))}" for b in BAD_IDS])
def test_an_unknown_id_in_a_real_file_is_caught(name, path, value, why):
    data = copy.deepcopy(yaml.safe_load(knowledge.text(name)))
    _set(data, path, value)
    with pytest.raises(knowledge.KnowledgeError) as exc:
        knowledge.validate(name, data)
    assert f"knowledge/{name}" in str(exc.value) and why in str(exc.value), str(exc.value)


def test_an_unknown_cause_in_a_case_is_caught():
    name = next(f for f in FILES if f.startswith("cases/"))
    data = yaml.safe_load(knowledge.text(name))
    data["signature"]["causes"] = ["not_a_cause"]
    with pytest.raises(knowledge.KnowledgeError, match=r"signature.causes.0: unknown cause 'not_a_cause'"):
        knowledge.validate(name, data)


def test_unknown_fact_kinds_in_a_decision_tree_are_caught():
    tree = next(f for f in FILES if f.startswith("decision_trees/"))
    data = yaml.safe_load(knowledge.text(tree))
    data["branches"][0]["needs"] = ["xid_evnet"]
    with pytest.raises(knowledge.KnowledgeError, match=r"branches.0: .*needs: unknown fact kind\(s\) \['xid_evnet'\]"):
        knowledge.validate(tree, data)
    data["branches"][0]["planned"] = True  # a planned branch names kinds no parser makes yet
    knowledge.validate(tree, data)


def _rule_ids() -> set[str]:
    return {p.stem for p in RULES.rglob("*.yaml")}


def test_rules_named_by_knowledge_exist():
    """``specific_rules`` and the rules of decision-tree branches and cases name shipped rules."""
    rules = _rule_ids()
    named: list[tuple[str, str]] = []
    named += [("xid.yaml", r) for e in knowledge.load("xid.yaml").xids for r in e.specific_rules]
    named += [("xid_judgements.yaml", r) for rs in knowledge.load("xid_judgements.yaml").specific_rules.values() for r in rs]
    named += [("cuda_errors.yaml", r) for e in knowledge.load("cuda_errors.yaml").errors for r in e.specific_rules]
    named += [("cuda_error_judgements.yaml", r) for g in knowledge.load("cuda_error_judgements.yaml").groups for r in g.specific_rules]
    for f in FILES:
        if f.startswith("decision_trees/"):
            named += [(f, r) for b in knowledge.load(f).branches for r in b.rules]
        if f.startswith("cases/"):
            named += [(f, r) for r in knowledge.load(f).signature.rules]
    missing = sorted({(f, r) for f, r in named if r not in rules})
    assert not missing, f"knowledge names rules that do not exist: {missing}"


def test_load_is_cached():
    assert knowledge.load("taxonomy.yaml") is knowledge.load("taxonomy.yaml")

"""The reader modules' patterns compiled on first use (facts/lazy_re.py) are the patterns they were."""
import copy
import importlib
import pickle
import re
import sys
import types
from pathlib import Path

from stethoscope.facts import lazy_re
from stethoscope.facts.lazy_re import LazyPattern
from stethoscope.facts.registry import load_fallbacks, load_parsers


def _lazy_of_every_reader_module() -> list[tuple[str, str, LazyPattern]]:
    load_parsers()
    load_fallbacks()
    found = []
    for name, mod in sorted(sys.modules.items()):
        if name.startswith("stethoscope.facts.parsers.") and mod is not None:
            for attr, value in sorted(vars(mod).items()):
                if type(value) is LazyPattern:
                    found.append((name, attr, value))
    return found


def test_the_reader_modules_patterns_are_lazy_and_compile_as_written():
    """Every reader module's module-level pattern not used yet: it compiles (as re.compile would at import),
    and its flags, read without compiling, are the compiled pattern's."""
    found = _lazy_of_every_reader_module()
    assert len(found) > 500, "the reader modules' patterns are no longer made lazy"
    for name, attr, lazy in found:
        flags = lazy.flags  # (before compiling)
        want = re.compile(lazy.pattern, lazy._flags)  # (another caller's re.compile: not lazy)
        assert type(want) is re.Pattern
        assert lazy.compiled() == want and flags == want.flags, f"{name}.{attr}"


def test_a_lazy_pattern_answers_as_the_compiled_one():
    lazy = LazyPattern(r"(?m)^NVRM: Xid \((?P<bus>PCI:[0-9a-f:.]+)\): (\d+)", re.IGNORECASE)
    want = re.compile(lazy.pattern, re.IGNORECASE)
    text = "x\nnvrm: Xid (PCI:0000:3b:00): 79, pid=1\n"
    assert isinstance(lazy, re.Pattern) and lazy.pattern == want.pattern and lazy.flags == want.flags
    assert lazy._compiled is None  # (isinstance, pattern and flags compile nothing)
    assert lazy.groups == 2 and lazy.groupindex == want.groupindex
    assert lazy.search(text).span() == want.search(text).span()
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in want.finditer(text)]
    assert lazy.sub("-", text) == want.sub("-", text) and lazy.split(text) == want.split(text)
    assert re.search(lazy, text).group("bus") == "PCI:0000:3b:00"  # the re module takes it as compiled
    assert pickle.loads(pickle.dumps(lazy)) == want and copy.deepcopy(lazy) is lazy and copy.copy(lazy) is lazy
    assert lazy == want and hash(lazy) == hash(want)


def test_only_a_reader_modules_own_top_level_patterns_are_lazy_and_stay_the_objects_it_holds():
    """A reader module's top-level re.compile is lazy, a function's is not; once used, a pattern is still the
    object its module's names and tuples hold (subprocess_error tells its forms apart by identity)."""
    mod = types.ModuleType("stethoscope.facts.parsers._lazy_probe")
    sys.modules[mod.__name__] = mod
    try:
        exec("import re\nA = re.compile(r'a+')\nB = A\nC = [re.compile(p) for p in ('b', 'c')]\nFORMS = (A, C[0])\n"
             "def later():\n    return re.compile('d')\n", mod.__dict__)
        assert type(mod.A) is LazyPattern and mod.B is mod.A and all(type(p) is LazyPattern for p in mod.C)
        assert type(mod.later()) is re.Pattern  # (compiled inside a function: as it always was)
        assert mod.A.match("aa").end() == 2 and mod.FORMS[1].search("xbc").start() == 1
        assert mod.FORMS[0] is mod.A and mod.B is mod.A and mod.FORMS[1] is mod.C[0]
        assert mod.A.fullmatch("aaa") is not None and mod.A.compiled() is mod.A.compiled()
    finally:
        del sys.modules[mod.__name__]
    outside = types.ModuleType("somewhere_else")
    exec("import re\nA = re.compile(r'a+')\n", outside.__dict__)
    assert type(outside.A) is re.Pattern


def test_a_form_told_apart_by_identity_reads_as_compiled_on_its_first_use():
    """harvest 2306's UCX segfault report read in a fresh process (its patterns not used before): the
    same facts as with every pattern compiled first (subprocess_error's ``pattern is _UCX_SIGNAL_BARE``)."""
    import subprocess

    from stethoscope.facts.parsers import subprocess_error  # noqa: F401 - (imported: its patterns lazy)

    case = "fixtures/harvest/cases/2306-deepep-nvshmem-ibrc-proxy-segfault-with-legacy-nv-peer-mem/app.txt"
    code = ("import sys\nfrom pathlib import Path\nfrom stethoscope.engine import parse_pool\n"
            "from stethoscope.facts.parsers.base import Artefact\n"
            "from stethoscope.facts.registry import load_parsers\nload_parsers()\n"
            "if sys.argv[1] == 'all':\n"
            "    from stethoscope.facts.lazy_re import LazyPattern\n"
            "    for m in list(sys.modules.values()):\n"
            "        for v in list(vars(m).values()):\n"
            "            if type(v) is LazyPattern: v.compiled()\n"
            f"r = parse_pool.parse_one(Artefact(path='a', text=Path({case!r}).read_text(), node='n'))\n"
            "print(sorted((f.kind, f.evidence.line) for f in r.facts))\n")
    root = Path(__file__).resolve().parent.parent
    got = [subprocess.run([sys.executable, "-c", code, how], capture_output=True, text=True, cwd=root, check=True).stdout
           for how in ("first", "all")]
    assert got[0] == got[1] and "reported_symptom" in got[0] and "launched_process_killed" in got[0]


def test_flags_read_without_compiling_are_the_compiled_ones():
    cases = [("a", 0), ("(?m)^a", 0), ("(?m)(?m)^a", re.M), ("(?i)(?s)a.b", 0), ("(?x) a b", 0), ("(?a)\\w", 0),
             ("a", re.ASCII | re.M), ("[(?i)]", 0), ("(?i:a)b", 0)]
    for pattern, flags in cases:
        got = lazy_re._flags_of(pattern, flags)
        assert got is None or got == re.compile(pattern, flags).flags, pattern
        assert LazyPattern(pattern, flags).flags == re.compile(pattern, flags).flags, pattern


def test_importing_a_reader_module_again_keeps_it_working():
    mod = importlib.import_module("stethoscope.facts.parsers.kernel_log")
    assert mod.detect("[    5.1] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n")


def test_no_reader_tells_a_match_by_its_patterns_identity():
    """A match's ``m.re`` is the compiled pattern, equal to the module's LazyPattern but not it: ``m.re is _X`` is
    False where it was True (k8s_device_plugin read 'start_failed' as 'register_failed' until it compared by ==)."""
    import ast

    root = Path(__file__).resolve().parent.parent / "facts" / "parsers"
    bad = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
                sides = [node.left, *node.comparators]
                if any(isinstance(x, ast.Attribute) and x.attr == "re" for x in sides):
                    bad.append(f"{path.name}:{node.lineno}")
    assert not bad, f"compare m.re by == (facts/lazy_re.py): {bad}"

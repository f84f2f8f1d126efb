"""Which PyTorch releases print each message form of ``bench/message_forms.yaml``.

Run on a host that reaches PyPI (not at steth's run time; the result is committed)::

    tools/torch_message_versions.sh /tmp/torchsrc          # pull each release's wheel, keep its strings
    .venv/bin/python tools/torch_message_versions.py /tmp/torchsrc > bench/message_forms_versions.json

The first step (``pip download torch==V --no-deps`` for 1.8 ... the newest release, then
``strings -n 6`` of ``libtorch_cpu.so``, ``libtorch_cuda*.so``, ``libtorch_python.so``, ``libc10*.so``
and a copy of ``torch/distributed/**.py`` and ``torch/cuda/**.py``) leaves one folder per
release. A form's ``literals`` are the fixed parts of its format string (C++ literals survive
in the shared libraries as they are; Python ones are read in the ``.py`` files); a release
prints the form when all its literals occur in that release and none of its ``absent`` ones
(the literal of the form that replaced it). For a form whose ``source`` is a
Python file, the line of its first literal in the newest release holding it is recorded too
(C++ sources keep no line numbers in a wheel).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
FORMS = ROOT / "bench" / "message_forms.yaml"


_MANGLED = re.compile(r"_Z|\*|N\d|ZN")


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v))


def _release(folder: Path) -> tuple[str, dict[str, str]]:
    """(the binaries' strings joined, {path under torch/: python text}) of one release."""
    # mangled symbol names are most of a library's strings and hold no message
    blob = "\n".join(ln for p in sorted(folder.glob("strings.*.txt"))
                     for ln in p.read_text(errors="replace").splitlines() if not _MANGLED.match(ln))
    py = {}
    base = folder / "x" / "torch"
    for p in sorted(base.rglob("*.py")):
        py["torch/" + str(p.relative_to(base))] = p.read_text(errors="replace")
    return blob, py


def main(src: str) -> int:
    forms = yaml.safe_load(FORMS.read_text())["forms"]
    releases = sorted((p for p in Path(src).iterdir() if (p / "done").exists() and not (p / "skipped").exists()), key=lambda p: _vkey(p.name))
    found: dict[str, dict] = {f["id"]: {"versions": [], "line": None, "line_version": None} for f in forms}
    for folder in releases:
        blob, py = _release(folder)
        pytext = "\n".join(py.values())
        both = blob + "\n" + pytext
        for f in forms:
            lits = f.get("literals") or []
            if not lits:
                continue
            hay = pytext if f["source"].endswith(".py") else both
            if all(lit in hay for lit in lits) and not any(a in hay for a in f.get("absent") or []):
                rec = found[f["id"]]
                rec["versions"].append(folder.name)
                text = py.get(f["source"])
                if text is not None and lits[0] in text:
                    rec["line"] = text[:text.index(lits[0])].count("\n") + 1
                    rec["line_version"] = folder.name
    out = {"generator": "tools/torch_message_versions.py",
           "releases": [p.name for p in releases],
           "forms": found}
    json.dump(out, sys.stdout, indent=1)
    print()
    missing = [k for k, v in found.items() if not v["versions"] and any(f["id"] == k and f.get("literals") for f in forms)]
    if missing:
        print("no release prints: " + ", ".join(missing), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/torchsrc"))

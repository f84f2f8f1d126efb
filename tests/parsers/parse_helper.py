"""One way for reader tests to parse a real fixture or a line: as the pipeline does (detect on
the text, wrappers stripped by ``Artefact.normalise``, then parse). Imported by the test
modules of this folder (pytest puts it on sys.path)."""
from pathlib import Path

from stethoscope.facts.parsers.base import Artefact

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "artefacts"


def parse_fixture(mod, rel: str | None = None, text: str | None = None):
    """``mod``'s reading of ``fixtures/artefacts/<rel>`` (or of ``text``); its detect must accept it."""
    text = (FIX / rel).read_text() if text is None else text
    assert mod.detect(text)
    a = Artefact(path=rel or "t.txt", text=text, node="n1")
    a.normalise()
    return mod.parse(a)

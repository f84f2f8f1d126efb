"""nixl_log: NIXL's status exceptions, on real lines."""
import pytest

from stethoscope.facts.parsers import nixl_log
from stethoscope.facts.parsers.base import Artefact

ROWS = [
    # (line, (exception, status) or None for no fact)
    ("nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND", ("nixlBackendError", "NIXL_ERR_BACKEND")),   # ai-dynamo/nixl#96
    ("ERROR 03-20 10:42:24 engine.py:244] nixlBackendError('NIXL_ERR_BACKEND')",
     ("nixlBackendError", "NIXL_ERR_BACKEND")),   # ai-dynamo/dynamo#288
    ("SGLang Qwen8 stormservice deployment error nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND",
     ("nixlBackendError", "NIXL_ERR_BACKEND")),   # ai-dynamo/nixl#616, its title
    # the status's name without its exception: an enum's listing (nixl's bindings), a comment (Ray's NIXL transport)
    ('        .value("NIXL_ERR_BACKEND", NIXL_ERR_BACKEND)', None),
    ("        # We could raise errors or NIXL could raise errors like NIXL_ERR_REMOTE_DISCONNECT,", None),
]


@pytest.mark.parametrize("line,want", ROWS)
def test_line(line, want):
    facts = nixl_log.parse(Artefact(path="log.txt", text=line + "\n")).facts
    assert [(f.exception, f.status) for f in facts] == ([want] if want else [])


def test_fixture():
    text = open("fixtures/artefacts/nixl_log/dynamo288_ucx_nixl_mixed.log").read()
    assert nixl_log.detect(text)
    (f,) = nixl_log.parse(Artefact(path="worker.log", text=text)).facts
    assert f.evidence.line == 2 and f.status == "NIXL_ERR_BACKEND"
    assert f.call is None  # (vLLM's logger printed the exception's repr, no frame above it)


def test_the_call_the_last_frame_shows():
    # ai-dynamo/nixl#334: registering a CUDA tensor; the frame's source line above the exception names registerMem
    text = open("fixtures/artefacts/nixl_log/nixl334_register_vram_backend_error.txt").read()
    (f,) = nixl_log.parse(Artefact(path="out.txt", text=text)).facts
    assert (f.evidence.line, f.call) == (7, "registerMem")
    # must not: a line above that is no frame's source (a logger's line, a sentence), or a source line without its
    # frame line above it (CONSTRUCTED near misses)
    for above in ("INFO 05-19 registering memory", "    self.agent.registerMem(reg_descs, handle_list)"):
        (f,) = nixl_log.parse(Artefact(path="o", text=above + "\nnixl._bindings.nixlBackendError: NIXL_ERR_BACKEND\n")).facts
        assert f.call is None, above

"""NIXL_ERR_REMOTE_DISCONNECT (rule nixl_remote_disconnect): the peer engine's agent went away. Where the paste shows
why (the peer's process killed by the OOM killer, a CUDA error of the peer), the disconnect is that failure's cascade,
wherever the peer runs; alone it is a warning that names no cause and leaves the verdict faulty (never healthy)."""
from __future__ import annotations

import small_bundle

# CONSTRUCTED from ai-dynamo/nixl src/bindings/python/nixl_bindings.cpp (the exception class, the status's name)
DISCONNECT = "nixl._bindings.nixlRemoteDisconnectError: NIXL_ERR_REMOTE_DISCONNECT\n"
# the kernel's OOM kill of the peer engine's process (mm/oom_kill.c's format, as the kernel-log fixtures have it)
OOM = ("[ 8123.456789] Out of memory: Killed process 4242 (python3) total-vm:812345678kB, anon-rss:501234567kB, "
       "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:990000kB oom_score_adj:0\n")


def test_the_peers_oom_kill_explains_the_disconnect(tmp_path, ruleset):
    rep = small_bundle.diagnose(tmp_path, {"decode0/worker.log": DISCONNECT, "prefill0/dmesg.txt": OOM}, ruleset)
    first = rep.findings[0]
    assert (first.cause, first.role, first.entity.node) == ("host_memory_oom_killed", "root_cause", "prefill0")
    nixl = [f for f in rep.findings if f.rule == "nixl_remote_disconnect"]
    assert nixl and nixl[0].role == "cascade" and first.rank in nixl[0].explained_by
    assert rep.verdict == "faulty"


def test_the_disconnect_alone_is_faulty_and_names_no_peer_cause(tmp_path, ruleset):
    rep = small_bundle.diagnose(tmp_path, {"decode0/worker.log": DISCONNECT}, ruleset)
    assert [(f.rule, f.cause, f.severity) for f in rep.findings] == [("nixl_remote_disconnect", "kv_transfer_peer_lost", "warning")]
    assert rep.verdict == "faulty"

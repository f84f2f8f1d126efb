#!/usr/bin/env bash
# The test command: installs what the tests need, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup_venv.sh
if [ "$#" -gt 0 ]; then
  exec .venv/bin/python -m pytest "$@"
fi
# The whole suite runs as five pytest processes, not one. durable-rules 2.0.28's C engine crashed with SIGSEGV
# inside assert_fact in sessions 26-27 (2 of 5 whole-suite runs, then 2 of 6 fresh-clone CI runs). Session 28 found
# the cause: events.c reduceExpressionSequence reads past the end of a pattern's join tests when the last one fails,
# and the read crashes when it walks off the heap (seed- and address-dependent: torch_watchdog_ranks_out_of_step's
# cases crashed within 20 runs in one process under every hash seed tried). engine/ruleengine/session.py now ends
# each such pattern with a group (_close_joins; tests/test_engine_session.py checks every shipped pattern), and a
# durable built from its source with that read bounded by abort() ran the rule files and the a-c tests without one.
# A group whose pytest process is still killed by a signal runs again, at most twice, said on standard error (a new
# engine crash would show there); a test that fails (pytest's own exit status, below 128) is never run again.
rc=0
for group in "tests/live tests/parsers" "tests/test_[a-c]*.py" "tests/test_[d-m]*.py" "tests/test_[n-q]*.py" "tests/test_[r-z]*.py"; do
  r=0
  # shellcheck disable=SC2086  # each group is a list of paths (globs expanded here)
  .venv/bin/python -m pytest $group || r=$?
  tries=0
  while [ "$r" -ge 128 ] && [ "$tries" -lt 2 ]; do
    tries=$((tries + 1))
    echo "tests/run.sh: the pytest process of '$group' was killed by signal $((r - 128)) (exit status $r;" \
         "durable-rules' SIGSEGV in assert_fact, above): that group runs again ($tries of 2)" >&2
    r=0
    # shellcheck disable=SC2086
    .venv/bin/python -m pytest $group || r=$?
  done
  if [ "$r" -ne 0 ]; then rc=$r; fi
done
exit "$rc"

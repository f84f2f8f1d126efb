#!/usr/bin/env bash
# The test command: installs what the tests need, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup_venv.sh
if [ "$#" -gt 0 ]; then
  exec .venv/bin/python -m pytest "$@"
fi
# The whole suite runs as five pytest processes, not one: durable-rules 2.0.28's C engine crashed with SIGSEGV
# inside assert_fact in 2 of 5 whole-suite runs of session 26 (once after 46% of the suite, once after 90%), each
# time deep into a process that had created and deleted thousands of rulesets, and never in shorter processes
# (the 642 rule files' 2,338 cases four times, 40 hash seeds of the failing files, the engine-equivalence and
# rule-file tests together). Until that engine bug is found, no process runs the whole suite. Every test still runs.
# A group whose pytest process is killed by a signal (that crash: exit status 139) runs again, at most twice, said
# on standard error (session 27: the crash came once in the 884-test r-z group, inside tests/test_rule_files.py);
# a test that fails (pytest's own exit status, below 128) is never run again.
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

#!/usr/bin/env bash
# Refresh requirements.lock, the exact versions (with their sha256) that tests/setup_venv.sh
# installs, from the ranges in pyproject.toml (+ its test extra) and tools/lock-tools.in.
#
#   bash tools/lock.sh                          # add what a new dependency needs, keep every other pin
#   bash tools/lock.sh --upgrade                # move every pin to the newest release in its range
#   bash tools/lock.sh --upgrade-package rich   # move one
#
# The durable-rules wheels in vendor/wheels are hashed in too (they are found through
# --find-links); when the durable-rules pin moves, rebuild them first: tools/durable_wheels.sh.
# The lock is resolved with Python 3.11 (PYTHON=... to change); tests/test_lock.py checks that
# it covers every declared dependency within its range.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PY" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "pip-tools==7.6.2"
# PIP_FIND_LINKS emptied: a machine's own wheel folder must not leak into the lock
PIP_FIND_LINKS= CUSTOM_COMPILE_COMMAND="bash tools/lock.sh" "$work/venv/bin/pip-compile" -q \
  --generate-hashes --no-reuse-hashes --allow-unsafe --extra test --strip-extras \
  --no-emit-index-url --no-emit-find-links --find-links vendor/wheels \
  "$@" -o requirements.lock pyproject.toml tools/lock-tools.in

#!/usr/bin/env bash
# The test command: installs what the tests need, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup_venv.sh
exec .venv/bin/python -m pytest "$@"

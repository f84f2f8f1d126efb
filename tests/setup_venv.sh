#!/usr/bin/env bash
# Set up everything gpu-stethoscope needs on a fresh Debian machine with Python 3.11+:
# python3-venv when missing, a virtual environment in .venv, the package and its test tools,
# at the exact versions of requirements.lock (durable-rules from vendor/wheels where one fits).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; assert sys.version_info >= (3, 11)' 2>/dev/null; then
  echo "gpu-stethoscope needs Python 3.11 or newer ($PY is $("$PY" --version 2>&1))" >&2
  exit 1
fi
if ! "$PY" -m venv --help >/dev/null 2>&1 || ! "$PY" -c 'import ensurepip' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  else
    echo "python3-venv is missing: sudo apt-get install python3-venv" >&2
    exit 1
  fi
fi
# the live tests serve recorded series with a real Prometheus (Debian's package; no service
# is started: the tests run the binary themselves on 127.0.0.1)
if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  else
    echo "prometheus/promtool are missing (the live tests will be skipped): sudo apt-get install prometheus" >&2
  fi
fi
# the live tests also check the exported inhibition rules in a real Alertmanager and run the
# live diagnosis against a second PromQL server, VictoriaMetrics single-node (Debian's packages;
# the tests skip what is absent)
if ! command -v prometheus-alertmanager >/dev/null 2>&1 || ! command -v victoria-metrics >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus-alertmanager victoria-metrics >/dev/null
  else
    echo "prometheus-alertmanager/victoria-metrics are missing (their live tests will be skipped): sudo apt-get install prometheus-alertmanager victoria-metrics" >&2
  fi
fi
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# What goes in is requirements.lock: exact versions with their sha256, transitive ones too
# (tools/lock.sh refreshes it from pyproject's ranges). First the installer and the build backend
# it pins, then everything else, then the package itself, editable, adding nothing.
# durable-rules (source-only on PyPI, a C extension) comes from vendor/wheels where a wheel fits
# (CPython 3.11, 3.12, 3.13 on x86_64: no C compiler needed; tools/durable_wheels.sh builds
# them); elsewhere, or with STETH_DURABLE_FROM_SOURCE=1, pip builds it from its sdist, with the
# Python 3.13 shim of tools/durable_shim.sh.
. tools/durable_shim.sh
VPY=.venv/bin/python  # an existing .venv keeps its own Python, whatever $PYTHON says
pytag=$("$VPY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
# (--only-binary: in hash-checking mode pip would rank PyPI's sdist, whose link carries its
# hash, above a local wheel, whose link does not)
durable_from=(--find-links vendor/wheels --only-binary durable-rules)
if [ -n "${STETH_DURABLE_FROM_SOURCE:-}" ] || [ "$(uname -m)" != x86_64 ] \
   || ! compgen -G "vendor/wheels/durable_rules-*-$pytag-$pytag-*x86_64.whl" >/dev/null; then
  # (no cache: a wheel pip built earlier without the shim would import no better)
  durable_from=(--no-binary durable-rules --no-cache-dir)
  if ! command -v "${CC:-cc}" >/dev/null 2>&1 \
     || ! "$VPY" -c 'import os, sysconfig; assert os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' 2>/dev/null; then
    why="vendor/wheels has no wheel for $("$VPY" --version 2>&1) on $(uname -m)"
    [ -z "${STETH_DURABLE_FROM_SOURCE:-}" ] || why="STETH_DURABLE_FROM_SOURCE is set"
    echo "durable-rules is to be built from its sdist ($why), which needs a C compiler and the Python headers: sudo apt-get install gcc python3-dev" >&2
    exit 1
  fi
fi
# a durable-rules that is installed but does not import (built for another Python, or for 3.13
# without the shim) would count as installed: it goes first
if "$VPY" -c 'import durable' 2>/dev/null && ! "$VPY" -c 'import durable.engine' 2>/dev/null; then
  "$VPY" -m pip uninstall -q -y durable-rules >/dev/null 2>&1 || true
fi
pip_install() { .venv/bin/python -m pip install -q --disable-pip-version-check "$@"; }
awk '/^[a-z0-9]/ { on = ($0 ~ /^(pip|setuptools)==/) } on && !/^ *#/' requirements.lock >.venv/lock-tools.txt
# pip's and setuptools' chatter goes to a log, shown only when the install fails
if ! { pip_install --require-hashes --no-deps -r .venv/lock-tools.txt \
       && CPPFLAGS="$(durable_cppflags "$VPY") ${CPPFLAGS:-}" pip_install --require-hashes --no-build-isolation "${durable_from[@]}" -r requirements.lock \
       && pip_install --no-deps --no-build-isolation -e . \
       && .venv/bin/python -m pip check \
       && .venv/bin/python -c 'import durable.engine'; } >.venv/install.log 2>&1; then
  cat .venv/install.log >&2
  echo "installing gpu-stethoscope into .venv failed (log above, also in .venv/install.log; where pip check names a dependency that requirements.lock lacks: bash tools/lock.sh)" >&2
  exit 1
fi
# Graphviz renders `steth topology show --image` (SVG, PNG); its tests are skipped without it
if ! command -v dot >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null
fi
# Chromium takes the screenshot of `steth diagnose --format html` (tests/test_html_report.py);
# that test is skipped without it
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi

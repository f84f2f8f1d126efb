#!/usr/bin/env bash
# Set up everything gpu-stethoscope needs on a fresh Debian machine with Python 3.11+:
# python3-venv when missing, a virtual environment in .venv, the package and its test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; assert sys.version_info >= (3, 11)' 2>/dev/null; then
  echo "gpu-stethoscope needs Python 3.11 or newer ($PY is $("$PY" --version 2>&1))" >&2
  exit 1
fi
if ! "$PY" -m venv --help >/dev/null 2>&1 || ! "$PY" -c 'import ensurepip' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
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
# pip's and setuptools' chatter goes to a log, shown only when the install fails
if ! { .venv/bin/python -m pip install -q --upgrade pip && .venv/bin/python -m pip install -q -e ".[test]"; } >.venv/install.log 2>&1; then
  cat .venv/install.log >&2
  echo "installing gpu-stethoscope into .venv failed (log above, also in .venv/install.log)" >&2
  exit 1
fi
# Graphviz renders `steth topology show --image` (SVG, PNG); its tests are skipped without it
if ! command -v dot >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq graphviz >/dev/null
fi
# Chromium takes the screenshot of `steth diagnose --format html` (tests/test_html_report.py);
# that test is skipped without it
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi

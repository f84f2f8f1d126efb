#!/bin/bash
# Pull each PyTorch release's wheel from PyPI, keep the strings of its libraries and its
# torch/distributed and torch/cuda Python files, drop the wheel (about 1 GB each, a few minutes):
#     tools/torch_message_versions.sh /tmp/torchsrc
# then: .venv/bin/python tools/torch_message_versions.py /tmp/torchsrc > bench/message_forms_versions.json
# A folder with a 'done' file is skipped (a rerun resumes); 'skipped' leaves a release out of the table.
set -u
PY="$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python"
DEST="${1:-/tmp/torchsrc}"
mkdir -p "$DEST" && cd "$DEST"
# (release, the Python whose wheel to take: 1.8-1.12 have none for 3.11)
for spec in "1.8.1 3.8" "1.10.2 3.8" "1.12.1 3.8" "1.13.1 3.11" "2.0.1 3.11" "2.1.2 3.11" "2.2.2 3.11" "2.4.1 3.11" \
            "2.6.0 3.11" "2.8.0 3.11" "2.10.0 3.11" "2.11.0 3.11" "2.14.1 3.11"; do
  set -- $spec; v=$1; py=$2
  [ -f $v/done ] && continue
  mkdir -p $v/w && cd $v/w
  "$PY" -m pip download torch==$v --no-deps -d . -q --only-binary=:all: --python-version $py \
    --platform manylinux1_x86_64 --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 >../pip.log 2>&1
  whl=$(ls *.whl 2>/dev/null | head -1)
  if [ -z "$whl" ]; then echo "$v: no wheel"; cd ../..; continue; fi
  unzip -q -o "$whl" 'torch/lib/libtorch_cuda*.so' 'torch/lib/libtorch_cpu.so' 'torch/lib/libc10_cuda.so' 'torch/lib/libc10.so' \
    'torch/lib/libtorch_python.so' 'torch/distributed/*' 'torch/cuda/*' 'torch/version.py' -d ../x 2>/dev/null
  rm -f "$whl"; cd ..
  for so in x/torch/lib/*.so; do strings -n 6 "$so" > strings.$(basename $so).txt; done
  rm -f x/torch/lib/*.so
  touch done; echo "$v: ok $(grep ^__version__ x/torch/version.py)"
  cd ..
done

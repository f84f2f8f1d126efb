# Sourced by tests/setup_venv.sh and tools/durable_wheels.sh: the C preprocessor flags that let
# durable-rules 2.0.28's extension build for the Python given as $1.
#
# Its src/rulespy/rules.c calls PyEval_CallObject, which CPython 3.13 removed from the C API: gcc 12
# still compiles the call (an implicit declaration) and `import durable` then fails with "undefined
# symbol: PyEval_CallObject"; gcc 14 (Debian 13) refuses to compile it. The define maps it to
# PyObject_CallObject, which is what the removed function did (both take the callable and an
# argument tuple or NULL). durable's setup.py overwrites CFLAGS, so the define goes in CPPFLAGS,
# which setuptools adds to every compile line.
durable_cppflags() {
  if "$1" -c 'import sys; sys.exit(sys.version_info < (3, 13))'; then
    printf '%s' '-DPyEval_CallObject(f,a)=PyObject_CallObject(f,a)'
  fi
}

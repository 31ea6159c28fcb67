#!/usr/bin/env bash
# The Phoenix server for the trace tests and benchmarks (tests/traces/phoenix_server.py): arize-phoenix in a venv
# of its own, .venv-phoenix (~850 MB), so its pins never touch ragviz's environment (ragviz itself depends only on
# the light arize-phoenix-client). Usage: scripts/phoenix_venv.sh [VENV]. Exits 0 without a server when the
# install fails; the Phoenix tests are then skipped and say why.
set -uo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv-phoenix}"
PHOENIX_VERSION="20.26.1"
if [ -x "$VENV/bin/phoenix" ] && "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('arize-phoenix') != '$PHOENIX_VERSION')" 2>/dev/null; then
  echo "phoenix venv ready: arize-phoenix $PHOENIX_VERSION"
  exit 0
fi
PY="${PYTHON:-python3}"
if ! "$PY" -m venv "$VENV" || ! "$VENV/bin/python" -m pip install --quiet "arize-phoenix==$PHOENIX_VERSION"; then
  echo "phoenix_venv: arize-phoenix could not be installed; the Phoenix tests will be skipped" >&2
  exit 0
fi
echo "phoenix venv ready: arize-phoenix $PHOENIX_VERSION"

#!/usr/bin/env bash
# The reference venv for the sampling-design estimators (tests/analysis/audits/test_audit_designs_reference.py):
# glide-py 0.11 (Python >= 3.12) and ssepy, kept apart from ragviz's own venv (ragviz stays on 3.10+).
# Usage: scripts/reference_venv.sh [VENV]   (default .venv-reference). Exits 0 without building when
# no Python 3.12+ is found; the reference tests are then skipped and say why.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv-reference}"
PY=""
for candidate in python3.13 python3.12 "$HOME/.pyenv/versions/3.12.1/bin/python3.12"; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
    PY="$candidate"; break
  fi
done
if [ -z "$PY" ]; then
  echo "reference_venv: no Python >= 3.12 found; the glide-py / ssepy reference tests will be skipped" >&2
  exit 0
fi
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import glide, ssepy' 2>/dev/null; then
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet "glide-py==0.11.0"
  # ssepy 0.1.1 pins numpy < 2 (and sphinx) while glide-py needs numpy 2; its allocation code runs on either
  "$VENV/bin/python" -m pip install --quiet --no-deps "ssepy==0.1.1"
fi
"$VENV/bin/python" -c 'import glide, ssepy; print("reference venv ready:", glide.__name__, ssepy.__name__)'

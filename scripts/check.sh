#!/usr/bin/env bash
# Install the package with the development tools into .venv, then run every check: lint, format, types, tests.
# This is the README's test command and what CI runs (.ci/run). Extra arguments go to pytest (e.g. -m slow).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh local,dev
echo "== ruff check"; .venv/bin/ruff check src tests bench
echo "== ruff format --check"; .venv/bin/ruff format --check src tests bench
echo "== mypy --strict src/"; .venv/bin/mypy --strict src/wason
echo "== pytest"; .venv/bin/python -m pytest -q -rs "$@"

#!/usr/bin/env bash
# Install the package with the development tools into .venv-dev, then run every check: lint, format, types, tests.
# This is the README's test command and what CI runs (.ci/run). Extra arguments go to pytest (e.g. -m slow).
# The checks have an environment of their own: .venv is left as scripts/install.sh made it (the main job's
# `wason` there keeps running while the checks reinstall theirs; an editable install over it once broke a run).
# The embedded model's llama.cpp is built once per machine: pip's cache serves the second environment.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-dev
WASON_VENV="${venv}" bash scripts/install.sh local,dev
# The store's PostgreSQL tests start a throwaway server: install Debian's server where we can (root with apt);
# elsewhere those tests say they skipped and why.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        echo "== installing PostgreSQL for the store tests"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    fi
fi
# The web app's browser tests drive Debian's Chromium with Playwright (which cannot download browsers here):
# install it the same way; elsewhere those tests say they skipped and why.
if [[ ! -x /usr/bin/chromium ]]; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        echo "== installing Chromium for the browser tests"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    fi
fi
# Python may keep compiled modules (even where PYTHONDONTWRITEBYTECODE is set): pytest then keeps its rewritten
# test modules too, and each worker's collection takes about 8 s instead of 18. A collection run in the
# background compiles them once, while the linters run, instead of once in each worker.
export PYTHONDONTWRITEBYTECODE=
"${venv}"/bin/python -m pytest -q --collect-only -p no:cacheprovider >/dev/null 2>&1 &
compiling=$!
echo "== ruff check"; "${venv}"/bin/ruff check src tests bench
echo "== ruff format --check"; "${venv}"/bin/ruff format --check src tests bench
echo "== mypy --strict src/"; "${venv}"/bin/mypy --strict src/wason
# two workers (pytest-xdist), as the machines have two cores; every test keeps to its own files, ports and stores
wait "$compiling" || true  # a test module that does not compile is reported by the run below
echo "== pytest"; "${venv}"/bin/python -m pytest -q -rs -n 2 "$@"

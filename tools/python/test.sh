#!/usr/bin/env bash
# Builds the Python package `binfmt` (crates/binfmt-python) into tools/.venv, next to the
# reference packages of tools/requirements.txt, and runs its pytest suites: ours against
# the references on the crates' fixtures, and the kastore package's own vendored suite.
#
#   bash tools/python/test.sh [PYTEST ARGS...]
#
# Uses tools/.venv if it exists (CI creates it in its reference step), creates it
# otherwise. The build is `pip install ./crates/binfmt-python`, the user's command.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=tools/.venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --retries 5 -r tools/requirements.txt pytest hypothesis
"$venv/bin/pip" install --quiet --retries 5 ./crates/binfmt-python
# The reference packages are installed: their comparisons must run, not skip.
export BINFMT_REQUIRE_REFERENCE=1
cd crates/binfmt-python
exec "../../$venv/bin/python" -m pytest -q -p no:cacheprovider tests "$@"

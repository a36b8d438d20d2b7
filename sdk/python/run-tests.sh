#!/bin/sh
# Runs the Python SDK's tests with pytest against an AX server started from the built jar. `./mvnw verify` runs it
# (pom.xml, at integration-test) with AX_JAR and JAVA_HOME set; by hand, after building the jar:
#
#   ./mvnw -B -o install -DskipTests -pl ax-cli -am && sdk/python/run-tests.sh [pytest arguments]
#
# Without a python3 (3.9 or newer) that has pytest it prints a notice and exits 0: a machine without Python builds
# AX all the same (.ci/run installs python3-pytest, so CI always runs them). AX_PYTHON names an interpreter to use.
set -eu
case "$0" in */*) cd "${0%/*}" ;; esac   # this directory (Maven runs it from here already)

usable() { "$1" -c 'import sys, pytest; sys.exit(0 if sys.version_info >= (3, 9) else 1)' >/dev/null 2>&1; }

python=""
for candidate in ${AX_PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null 2>&1 && usable "$candidate"; then python="$candidate"; break; fi
done
if [ -z "$python" ]; then
  if command -v python3 >/dev/null 2>&1; then
    why="$(python3 --version 2>&1) has no pytest, or is older than 3.9 (Debian: apt-get install python3-pytest)"
  else
    why="no python3 on the PATH"
  fi
  echo "NOTICE: skipping the Python SDK tests (sdk/python): $why"
  exit 0
fi

out="${AX_TEST_OUTPUT:-target}"
mkdir -p "$out"
echo "Python SDK tests with $("$python" --version 2>&1), pytest $("$python" -c 'import pytest; print(pytest.__version__)')"
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the source tree
exec "$python" -m pytest -p no:cacheprovider -rs --junitxml="$out/pytest.xml" "$@"

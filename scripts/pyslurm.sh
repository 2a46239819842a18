#!/bin/bash
# Run pyslurm 22.5.x's three test suites on Spur through libspur_compat's
# Slurm 22.05 library (target/compat/22.05/libslurm.so.38).
#
# Usage: scripts/pyslurm.sh PYSLURM_SOURCE_DIR [WORK_DIR]
#   PYSLURM_SOURCE_DIR  a pyslurm checkout at tag v22.5.3 (GitHub only: PyPI
#                       has no 22.5 release), e.g.
#                       git clone -b v22.5.3 https://github.com/PySlurm/pyslurm
#   WORK_DIR            where the venv, the build, the cluster and the logs go
#                       (default /tmp/spur-pyslurm)
# Needs: Debian 12's Slurm 22.05 headers in /usr/include/slurm (libslurm-dev;
# only the headers: the extension modules link Spur's library), python3
# (3.11: setuptools 59 needs distutils), a C compiler, network access to the
# Python package registry for the pinned build tools.
# Environment: PYSLURM_REBUILD=1 rebuilds pyslurm even when WORK_DIR holds a
# build; PYTHON picks the interpreter (default python3); PYSLURM_ACCOUNTING=1
# starts the cluster with AccountingStorageType=accounting_storage/slurmdbd
# (Spur's controllers serve the slurmdb calls: the test_db_* files need it);
# PYSLURM_SUITES picks the suites (default "unit integration legacy").
#
# What it does: builds Spur's commands and daemons and the 22.05 library,
# makes a venv with Cython 0.29.37, setuptools 59.2.0, wheel 0.37.0 and
# pytest, builds pyslurm against /usr/include and Spur's library, starts a
# two-node Spur cluster (24 CPUs, 64000 MB each, 22.05 behaviour: the
# integration jobs ask for 2 tasks x 3 CPUs x 1G and some tests run three
# at once), runs tests/unit, tests/integration and the legacy tests/test_*.py
# (which compare with `scontrol`: Spur's comes first on PATH), stops the
# cluster and prints each suite's counts and failures. Logs and JUnit files:
# WORK_DIR/logs. Exit status 0 when the three suites ran (failures expected:
# see the known failures in the final report of the pyslurm work, e.g. the
# slurmdbd-backed test_db_* files, which need a Slurm database Spur has not).
set -uo pipefail

src="${1:?usage: scripts/pyslurm.sh PYSLURM_SOURCE_DIR [WORK_DIR]}"
work="${2:-/tmp/spur-pyslurm}"
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-python3}"
src="$(cd "$src" && pwd)" || exit 2
[ -f "$src/setup.py" ] && [ -d "$src/tests/unit" ] || { echo "pyslurm.sh: $src is no pyslurm source tree" >&2; exit 2; }
grep -q 'SLURM_VERSION_NUMBER 0x1605' /usr/include/slurm/slurm_version.h 2>/dev/null ||
  { echo "pyslurm.sh: /usr/include/slurm holds no Slurm 22.05 headers (apt-get install libslurm-dev)" >&2; exit 2; }
mkdir -p "$work/logs"
work="$(cd "$work" && pwd)"
lib="$root/target/compat/22.05"

step() { printf '\n== %s\n' "$*"; }

step "Spur: commands, daemons, the 22.05 library"
(cd "$root" && cargo build -q --workspace --bins && bash scripts/compat.sh 22.05) || exit 1

step "venv with the pinned build tools"
if [ ! -x "$work/venv/bin/python" ]; then
  "$python" -m venv "$work/venv" || exit 1
fi
"$work/venv/bin/pip" install -q "Cython==0.29.37" "setuptools==59.2.0" "wheel==0.37.0" pytest || exit 1

step "pyslurm $(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$src/pyslurm/__version__.py" 2>/dev/null) from $src"
build="$(ls -d "$work"/src/build/lib.* 2>/dev/null | head -1)"
if [ -z "$build" ] || [ "${PYSLURM_REBUILD:-0}" = 1 ]; then
  rm -rf "$work/src"
  cp -a "$src" "$work/src" || exit 1
  rm -rf "$work/src/build"
  # headers from /usr/include; libslurm.so (and the RUNPATH) from Spur's build
  (cd "$work/src" && SLURM_INCLUDE_DIR=/usr/include SLURM_LIB_DIR="$lib" \
    "$work/venv/bin/python" setup.py build -j 2 >"$work/logs/build.log" 2>&1) ||
    { tail -30 "$work/logs/build.log"; echo "pyslurm.sh: build failed ($work/logs/build.log)" >&2; exit 1; }
  build="$(ls -d "$work"/src/build/lib.* | head -1)"
fi
# the tests run outside the source tree, whose pyslurm/ would shadow the build
rm -rf "$work/run" && mkdir -p "$work/run" && cp -a "$src/tests" "$work/run/tests"

step "Spur cluster in $work/cluster"
cluster="$work/cluster"
acct=()
if [ "${PYSLURM_ACCOUNTING:-0}" = 1 ]; then
  printf 'AccountingStorageType=accounting_storage/slurmdbd\n' >"$work/accounting.conf"
  acct=(--extra-conf "$work/accounting.conf")
fi
"$root/target/debug/spur" cluster down --dir "$cluster" >/dev/null 2>&1
rm -rf "$cluster"
"$root/target/debug/spur" cluster up --dir "$cluster" --nodes 2 --cpus 24 --memory 64000 --compat 22.05 "${acct[@]}" >"$work/logs/cluster.log" 2>&1 ||
  { cat "$work/logs/cluster.log"; exit 1; }
trap '"$root/target/debug/spur" cluster down --dir "$cluster" >/dev/null 2>&1' EXIT

export SLURM_CONF="$cluster/slurm.conf"
export PATH="$cluster/bin:$PATH"
export PYTHONPATH="$build"
export LD_LIBRARY_PATH="$lib"
cd "$work/run" || exit 1
"$work/venv/bin/python" -c 'import pyslurm
m = [l.split()[-1] for l in open("/proc/self/maps") if "libslurm" in l]
print("pyslurm", pyslurm.__version__, "imports, on", m[0] if m else "?")' || exit 1

declare -A summary
run_suite() {
  local name="$1"; shift
  step "suite $name"
  timeout 1800 "$work/venv/bin/python" -m pytest -q -p no:cacheprovider -rfE --durations=5 \
    --junitxml="$work/logs/$name.xml" "$@" >"$work/logs/$name.log" 2>&1
  grep -E '^(FAILED|ERROR) ' "$work/logs/$name.log" | sed 's/^/  /'
  summary[$name]="$(grep -E '^(=+ )?[0-9]+ (passed|failed)|^(=+ )?[0-9]+ .*in [0-9.]+s' "$work/logs/$name.log" | tail -1 | tr -d '=')"
  [ -n "${summary[$name]}" ] || summary[$name]="did not finish (see $work/logs/$name.log)"
  echo "  ${summary[$name]}"
}
suites="${PYSLURM_SUITES:-unit integration legacy}"
for s in $suites; do
  case "$s" in
    unit) run_suite unit tests/unit ;;
    integration) run_suite integration tests/integration ;;
    db) run_suite db $(ls tests/integration/test_db_*.py) ;;
    # shellcheck disable=SC2046
    legacy) run_suite legacy $(ls tests/test_*.py) ;;
  esac
done

step "summary (logs in $work/logs)"
for s in $suites; do printf '  %-12s %s\n' "$s" "${summary[$s]}"; done

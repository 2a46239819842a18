#!/bin/bash
# The fuzz targets of fuzz/ (cargo-fuzz and libFuzzer; fuzz/Cargo.toml lists
# them, fuzz/fuzz_targets/ has one file each).
#
#   scripts/fuzz.sh bounded            every target for FUZZ_SECS seconds (10): make test
#   scripts/fuzz.sh long [SECS]        every target for SECS seconds (600)
#   scripts/fuzz.sh run TARGET [SECS]  one target (SECS: 600)
#   scripts/fuzz.sh repro TARGET FILE  run one input (a crash's) through its target
#   scripts/fuzz.sh merge TARGET       add to the committed seeds (fuzz/corpus/TARGET)
#                                      the inputs found since that reach new code
#   scripts/fuzz.sh seeds              rewrite the seeds from the repository's own
#                                      inputs (fuzz/examples/seeds.rs)
#
# Targets run FUZZ_JOBS at a time (the number of CPUs). Each reads the
# committed seeds and keeps what it finds in fuzz/target/corpus/TARGET (not
# committed). A panic, an arithmetic overflow, more than 2 GB of memory or an
# input that takes over 10 s fails the run; the input is saved under
# fuzz/artifacts/TARGET/ and named in the output. Such an input becomes a
# regression test of the crate at fault and a seed (fuzz/corpus/TARGET/).
#
# Installs what it needs: cargo-fuzz (cargo install), a C++ compiler for
# libFuzzer (apt-get). cargo fuzz uses unstable compiler flags:
# RUSTC_BOOTSTRAP=1 lets the stable toolchain take them, so no nightly is
# needed. No sanitizer by default (Spur is safe Rust; the fuzzer still sees
# every panic and overflow): FUZZ_SANITIZER=address to use ASan.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=${1:-help}
export RUSTC_BOOTSTRAP=1
sanitizer=${FUZZ_SANITIZER:-none}
jobs=${FUZZ_JOBS:-$(nproc)}

need_tools() {
  if ! command -v c++ >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
      echo "fuzz: installing g++ (libFuzzer is C++)"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ >/dev/null
    else
      echo "fuzz: please install a C++ compiler (g++)" >&2; exit 1
    fi
  fi
  if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz"
    cargo install cargo-fuzz --version 0.13.2 --locked --quiet
  fi
}

build() {
  local t0=$SECONDS
  echo "fuzz: building the targets (fuzz/target)"
  (cd fuzz && cargo fuzz build --sanitizer "$sanitizer" --codegen-units 16 "$@")
  echo "fuzz: built in $((SECONDS - t0)) s"
}

targets() { (cd fuzz && cargo fuzz list); }

bin_dir() { echo "$root/fuzz/target/$(rustc -vV | sed -n 's/^host: //p')/release"; }

# run TARGET SECS: fuzz one target from its seeds; its log in fuzz/target/logs
run_one() {
  local t=$1 secs=$2 bin
  bin="$(bin_dir)/$t"
  mkdir -p "fuzz/target/corpus/$t" "fuzz/artifacts/$t" fuzz/target/logs
  local log="fuzz/target/logs/$t.log"
  if "$bin" "fuzz/target/corpus/$t" "fuzz/corpus/$t" -max_total_time="$secs" -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1; then
    local done_line
    done_line=$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" | tail -1 || true)
    echo "fuzz: $t: ${done_line:-done}, corpus $(ls "fuzz/target/corpus/$t" | wc -l) new inputs"
  else
    echo "fuzz: $t FAILED (log: $log)"
    grep -E 'panicked at|^  (left|right):|ERROR: libFuzzer|SUMMARY|Test unit written|^thread' "$log" | head -12 | sed 's/^/  /'
    return 1
  fi
}

run_all() {
  local secs=$1 failed=0 t0=$SECONDS
  local all; all=$(targets)
  local running=0
  for t in $all; do
    if [ "$running" -ge "$jobs" ]; then
      wait -n || failed=1
      running=$((running - 1))
    fi
    run_one "$t" "$secs" &
    running=$((running + 1))
  done
  while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
  done
  echo "fuzz: $(echo "$all" | wc -w) targets, ${secs} s each, $jobs at a time: $((SECONDS - t0)) s"
  if [ "$failed" != 0 ]; then
    echo "fuzz: a target failed: reproduce with scripts/fuzz.sh repro TARGET fuzz/artifacts/TARGET/FILE" >&2
    exit 1
  fi
}

need_tools
case "$mode" in
  bounded) build; run_all "${FUZZ_SECS:-10}" ;;
  long) build; run_all "${2:-600}" ;;
  run) build "$2"; run_one "$2" "${3:-600}" ;;
  repro) build "$2"; "$(bin_dir)/$2" "$3" ;;
  merge)
    build "$2"
    "$(bin_dir)/$2" -merge=1 "fuzz/corpus/$2" "fuzz/target/corpus/$2"
    ;;
  seeds) (cd fuzz && CARGO_TARGET_DIR="$root/target" cargo run --example seeds) ;;
  *) sed -n '2,13p' "$0" >&2; exit 2 ;;
esac

#!/bin/bash
# Side-by-side speed of Spur and real Slurm 22.05 on this machine, in one run.
#
#   bash bench/submit_squeue.sh          (or `make bench`)
#
# Starts real Slurm 22.05 (the reference start.sh --clean, under $SLURMREF_DIR) and a
# 4-node Spur cluster (`spur cluster up`, nodes sized like the reference's cn[01-04]),
# then, for each system, measures:
#   submit_loop   1,000 `sbatch --wrap=true`, one after the other        (jobs/s)
#   complete_loop first submit of that loop -> all 1,000 jobs finished   (s)
#   submit_par    1,000 `sbatch --wrap=true` from 8 parallel submitters  (jobs/s)
#   squeue_1000   `squeue > /dev/null` with 1,000 held (pending) jobs    (ms, median & p90)
#   squeue_empty  `squeue > /dev/null` with an empty queue               (ms, median & p90)
# Submission phases are repeated BENCH_REPEAT times, alternating which system goes first;
# squeue runs alternate Spur/Slurm call by call. Prints a table, then one machine-readable
# line per measure:  <measure>: spur_<m>=.. slurm_<m>=.. ratio=..  where ratio is how many
# times faster Spur is (rates: spur/slurm; times: slurm/spur; >1 means Spur is faster).
#
# Environment:
#   BENCH_PROFILE=debug|release  which Spur build to use (default debug; release builds it)
#   BENCH_JOBS=1000  BENCH_PAR=8  BENCH_SQUEUE_RUNS=20  BENCH_REPEAT=3
#   SLURMREF_DIR  (default /tmp/spur-bench-slurmref)   SPUR_BENCH_DIR (default /tmp/spur-bench-spur)
#   BENCH_OUT     directory for raw samples and logs (default /tmp/spur-bench-out)
#   BENCH_NO_BUILD=1  use the existing binaries without running cargo
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${BENCH_JOBS:-1000}
PAR=${BENCH_PAR:-8}
RUNS=${BENCH_SQUEUE_RUNS:-20}
REPS=${BENCH_REPEAT:-3}
PROFILE=${BENCH_PROFILE:-debug}
REF=${SLURMREF_SCRIPTS:-/work/shared/reference/slurm-22.05}
export SLURMREF_DIR=${SLURMREF_DIR:-/tmp/spur-bench-slurmref}
SPUR_DIR=${SPUR_BENCH_DIR:-/tmp/spur-bench-spur}
OUT=${BENCH_OUT:-/tmp/spur-bench-out}
WAIT_TIMEOUT=${BENCH_WAIT_TIMEOUT:-900}

log() { echo "[bench $(date +%T)] $*" >&2; }
die() { echo "[bench] ERROR: $*" >&2; exit 1; }

case "$PROFILE" in
  debug|release) ;;
  *) die "BENCH_PROFILE must be debug or release, not '$PROFILE'" ;;
esac
[ "$N" -gt 0 ] && [ "$PAR" -gt 0 ] && [ "$RUNS" -gt 0 ] && [ "$REPS" -gt 0 ] || die "bad BENCH_* numbers"
[ -x "$REF/start.sh" ] || [ -r "$REF/start.sh" ] || die "no reference Slurm scripts in $REF"
for c in sbatch squeue scancel; do [ -x /usr/bin/$c ] || die "/usr/bin/$c missing (apt-get install slurm-wlm)"; done
command -v python3 >/dev/null || die "python3 is needed for the statistics"

# Nothing from the caller's environment may steer either system's commands.
for v in $(compgen -e | grep -E '^(SLURM_|SBATCH_|SQUEUE_|SCANCEL_|SALLOC_|SRUN_)'); do unset "$v"; done

# ------------------------------------------------------------------ build
if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
  log "building Spur ($PROFILE)"
  if [ "$PROFILE" = release ]; then
    (cd "$ROOT" && cargo build --workspace --bins --release) >&2 || die "cargo build failed"
  else
    (cd "$ROOT" && cargo build --workspace --bins) >&2 || die "cargo build failed"
  fi
fi
[ -x "$ROOT/target/$PROFILE/spur" ] || die "$ROOT/target/$PROFILE/spur not built"

rm -rf "$OUT"; mkdir -p "$OUT/bin" "$OUT/jobs"
# A private copy of the binaries: the tree may be rebuilt while we run (the records
# travel as bincode, so a client newer than the daemons cannot read their answers).
for b in spur spurctld spurd spurstepd; do cp "$ROOT/target/$PROFILE/$b" "$OUT/bin/$b" || die "cannot copy $b"; done
SPUR_BIN=$OUT/bin/spur
# Jobs write slurm-<id>.out into the directory they were submitted from.
cd "$OUT/jobs" || die "cannot enter $OUT/jobs"
SAMPLES=$OUT/samples.tsv     # system <TAB> measure <TAB> value
: > "$SAMPLES"

# ------------------------------------------------------------------ clusters
SLURM_STARTED=0
SPUR_STARTED=0
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # the background submitters of an interrupted parallel phase
  local j; for j in $(jobs -p); do kill "$j" 2>/dev/null; done
  if [ $SPUR_STARTED = 1 ]; then
    log "stopping Spur ($SPUR_DIR)"
    "$SPUR_BIN" cluster down --dir "$SPUR_DIR" >&2 || true
  fi
  if [ $SLURM_STARTED = 1 ]; then
    log "stopping Slurm ($SLURMREF_DIR)"
    bash "$REF/stop.sh" > "$OUT/slurm-stop.log" 2>&1 || true
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port_open() { (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null; }
ref_running() { # anything of *our* reference cluster alive?
  local f
  for f in "$SLURMREF_DIR"/run/*.pid "$SLURMREF_DIR"/mysql/mysqld.pid "$SLURMREF_DIR"/munge/munged.pid; do
    [ -s "$f" ] || continue
    local p; p=$(cat "$f" 2>/dev/null)
    [[ "$p" =~ ^[0-9]+$ ]] && [ -d /proc/$p ] && return 0
  done
  return 1
}

# Real Slurm: start.sh --clean refuses while anything of this cluster runs, so a leftover
# from an interrupted run in *our* directory is stopped first. The reference ports are
# fixed: if someone else's reference cluster holds them, stop here rather than fight.
if ref_running; then
  log "a reference cluster from an earlier run is still up in $SLURMREF_DIR; stopping it"
  bash "$REF/stop.sh" > "$OUT/slurm-stop-leftover.log" 2>&1 || true
fi
busy=""
for p in 26817 26818 26819 26820 26821 26822 26823 26824 23306; do port_open $p && busy="$busy $p"; done
[ -z "$busy" ] || die "ports$busy are in use (another reference Slurm cluster, not under $SLURMREF_DIR?); stop it first"

log "starting real Slurm 22.05 under $SLURMREF_DIR (start.sh --clean)"
SLURM_STARTED=1
t0=$EPOCHREALTIME
bash "$REF/start.sh" --clean > "$OUT/slurm-start.log" 2>&1 || { cat "$OUT/slurm-start.log" >&2; die "reference start.sh failed"; }
SLURM_UP_S=$(python3 -c "print(f'{$EPOCHREALTIME-$t0:.1f}')")

log "starting Spur under $SPUR_DIR"
if [ -d "$SPUR_DIR/run" ]; then "$SPUR_BIN" cluster down --dir "$SPUR_DIR" >&2 || true; fi
rm -rf "$SPUR_DIR"
SPUR_STARTED=1
t0=$EPOCHREALTIME
# Nodes sized like the reference's partition cpu (cn[01-04]: 8 CPUs, 16 GB), so both run
# up to 32 one-CPU jobs at a time.
"$SPUR_BIN" cluster up --dir "$SPUR_DIR" --nodes 4 --cpus 8 --memory 16000 > "$OUT/spur-up.log" 2>&1 \
  || { cat "$OUT/spur-up.log" >&2; die "spur cluster up failed"; }
SPUR_UP_S=$(python3 -c "print(f'{$EPOCHREALTIME-$t0:.1f}')")
grep -q "^export SLURM_CONF=$SPUR_DIR/slurm.conf$" "$OUT/spur-up.log" || die "unexpected output from spur cluster up: $(cat "$OUT/spur-up.log")"

# ------------------------------------------------------------------ which commands
# use SYSTEM: point SLURM_CONF and the command paths at one system, never via $PATH.
use() {
  case $1 in
    slurm)
      export SLURM_CONF=$SLURMREF_DIR/etc/slurm.conf
      SBATCH=/usr/bin/sbatch SQUEUE=/usr/bin/squeue SCANCEL=/usr/bin/scancel ;;
    spur)
      export SLURM_CONF=$SPUR_DIR/slurm.conf
      SBATCH=$SPUR_DIR/bin/sbatch SQUEUE=$SPUR_DIR/bin/squeue SCANCEL=$SPUR_DIR/bin/scancel ;;
  esac
  CUR=$1
}

# Each system's commands must reach that system and only it: Slurm's partition is `cpu`,
# Spur's is `debug`, and Spur's sbatch is a link to the binary we built.
[ "$(readlink -f "$SPUR_DIR/bin/sbatch")" = "$(readlink -f "$SPUR_BIN")" ] || die "$SPUR_DIR/bin/sbatch is not $SPUR_BIN"
use slurm; [ "$(/usr/bin/sinfo -h -o %R | sort -u | tr '\n' ' ')" = "cpu gpu " ] || die "Slurm's sinfo does not show partitions cpu gpu"
SLURM_VERSION=$(/usr/bin/sbatch --version)
use spur;  [ "$("$SPUR_DIR/bin/sinfo" -h -o %R | sort -u | tr '\n' ' ')" = "debug " ] || die "Spur's sinfo does not show partition debug"

ms_since() { python3 -c "print(f'{($EPOCHREALTIME-$1)*1000:.3f}')"; }

sample() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$SAMPLES"; }

queue_len() { $SQUEUE -h -o %i 2>/dev/null | wc -l; }

# wait_empty TIMEOUT_S: until this system's queue shows no job (pending, running, completing)
wait_empty() {
  local end=$((SECONDS + $1)) n out
  while :; do
    if out=$($SQUEUE -h -o %i 2>/dev/null); then
      n=$(printf '%s' "$out" | grep -c .)
      [ "$n" = 0 ] && return 0
    else
      n="?"
    fi
    [ $SECONDS -ge $end ] && { log "$CUR: queue still has $n jobs after $1 s"; return 1; }
    sleep 0.2
  done
}

# submit_loop COUNT [ARGS...]: COUNT sbatch one after the other; prints failures
submit_loop() {
  local n=$1 i fail=0; shift
  for ((i = 0; i < n; i++)); do
    $SBATCH "$@" --wrap=true > /dev/null 2>> "$OUT/$CUR-sbatch.err" || fail=$((fail + 1))
  done
  echo $fail
}

# submit_par COUNT [ARGS...]: COUNT sbatch spread over $PAR parallel submitters
submit_par() {
  local n=$1 k fail=0 f; shift
  local per=$((n / PAR)) extra=$((n % PAR)) pids=()
  for ((k = 0; k < PAR; k++)); do
    submit_loop $((per + (k < extra ? 1 : 0))) "$@" > "$OUT/par.$k" &
    pids+=($!)
  done
  wait "${pids[@]}"
  for ((k = 0; k < PAR; k++)); do f=$(cat "$OUT/par.$k" 2>/dev/null || echo "$per"); fail=$((fail + f)); done
  echo $fail
}

cancel_all() {
  $SCANCEL -u root > /dev/null 2>&1 || true
  wait_empty 120 || die "$CUR: jobs left after scancel -u root"
}

check_fail() { [ "$1" = 0 ] || die "$CUR: $1 of $N sbatch failed during $2 (see $OUT/$CUR-sbatch.err)"; }

# wait_idle: until the machine is quiet (under 20% of one core busy over half a second,
# at most 60 s), so that one system's leftovers (Slurm's accounting of the jobs just
# cancelled, MariaDB's writes, the kernel's writeback) do not run in the other's phase
wait_idle() {
  local end=$((SECONDS + 60)) a b hz
  hz=$(getconf CLK_TCK)
  while [ $SECONDS -lt $end ]; do
    a=$(machine_busy); sleep 0.5; b=$(machine_busy)
    [ $(( (b - a) * 100 )) -lt $(( hz * 20 / 2 )) ] && return 0
  done
  log "machine still busy after 60 s; measuring anyway"
}

# ------------------------------------------------------------------ phases
phase_submit() { # SYSTEM REP
  use "$1"
  local t0 t_sub fail t_all
  [ "$(queue_len)" = 0 ] || die "$CUR: queue not empty before the submission phase"
  wait_idle
  log "$CUR rep $2: $N sbatch in a loop"
  local cpu0 busy0; cpu0=$(cpu_ticks "$(ctld_pid)"); busy0=$(machine_busy)
  t0=$EPOCHREALTIME
  fail=$(submit_loop "$N")
  t_sub=$(ms_since "$t0")
  check_fail "$fail" loop
  wait_empty "$WAIT_TIMEOUT" || die "$CUR: loop jobs did not finish"
  t_all=$(ms_since "$t0")
  sample "$CUR" ctld_cpu_loop_s "$(python3 -c "print(($(cpu_ticks "$(ctld_pid)") - $cpu0) / $(getconf CLK_TCK))")"
  sample "$CUR" machine_cpu_loop_ms_per_job "$(python3 -c "print(($(machine_busy) - $busy0) * 1000 / $(getconf CLK_TCK) / $N)")"
  sample "$CUR" submit_loop_per_s "$(python3 -c "print($N/($t_sub/1000))")"
  sample "$CUR" complete_loop_s "$(python3 -c "print($t_all/1000)")"
  log "$CUR rep $2: $N sbatch from $PAR parallel submitters"
  wait_idle
  t0=$EPOCHREALTIME
  fail=$(submit_par "$N")
  t_sub=$(ms_since "$t0")
  check_fail "$fail" parallel
  wait_empty "$WAIT_TIMEOUT" || die "$CUR: parallel jobs did not finish"
  t_all=$(ms_since "$t0")
  sample "$CUR" submit_par_per_s "$(python3 -c "print($N/($t_sub/1000))")"
  sample "$CUR" complete_par_s "$(python3 -c "print($t_all/1000)")"
  find "$OUT/jobs" -maxdepth 1 -name 'slurm-*.out' -delete
}

# squeue_runs MEASURE: $RUNS timed `squeue > /dev/null` per system, alternating systems
squeue_runs() {
  local i s t0 order
  for ((i = 0; i < RUNS; i++)); do
    if [ $((i % 2)) = 0 ]; then order="spur slurm"; else order="slurm spur"; fi
    for s in $order; do
      use "$s"
      t0=$EPOCHREALTIME
      $SQUEUE > /dev/null 2>> "$OUT/$CUR-squeue.err" || die "$CUR: squeue failed"
      sample "$CUR" "$1" "$(ms_since "$t0")"
    done
  done
}

# user+system CPU time of a process (all its threads), in clock ticks
cpu_ticks() { local st; st=$(cat "/proc/$1/stat") || { echo 0; return; }; st=${st##*) }; set -- $st; echo $((${12} + ${13})); }
# busy CPU ticks of the whole machine (user+nice+system+irq+softirq, all cores)
machine_busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat; }
ctld_pid() { if [ "$CUR" = spur ]; then echo "$SPURCTLD_PID"; else echo "$SLURMCTLD_PID"; fi; }
rss_kb() { awk '/^VmRSS/{print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
SLURMCTLD_PID=$(cat "$SLURMREF_DIR/run/slurmctld.pid")
SPURCTLD_PID=$(cat "$SPUR_DIR"/run/spurctld-*.pid | head -1)

# held REP: $N held jobs into each system (the submission rate without any job
# running); on the first repetition, with both clusters fresh, time squeue against them.
phase_held() {
  local s fail lines
  for s in spur slurm; do
    use "$s"
    [ "$(queue_len)" = 0 ] || die "$CUR: queue not empty before the held phase"
    log "rep $1: $CUR: $N held jobs ($PAR parallel submitters)"
    wait_idle
    t0=$EPOCHREALTIME
    fail=$(submit_par "$N" --hold)
    sample "$CUR" submit_par_held_per_s "$(python3 -c "print($N/($EPOCHREALTIME-$t0))")"
    check_fail "$fail" "held submission"
    [ "$($SQUEUE -h -t PD -o %i | wc -l)" = "$N" ] || die "$CUR: expected $N pending jobs"
  done
  if [ "$1" = 1 ]; then
    sample spur ctld_rss_1000_mb "$(($(rss_kb "$SPURCTLD_PID") / 1024))"
    sample slurm ctld_rss_1000_mb "$(($(rss_kb "$SLURMCTLD_PID") / 1024))"
    log "squeue with $N pending jobs ($RUNS runs each, alternating)"
    squeue_runs squeue_1000_ms
    # the output itself, for the record (and so a broken squeue cannot pass as a fast one)
    for s in spur slurm; do
      use "$s"
      lines=$($SQUEUE | tee "$OUT/$CUR-squeue-1000.txt" | wc -l)
      [ "$lines" = $((N + 1)) ] || die "$CUR: squeue printed $lines lines, expected $((N + 1))"
    done
  fi
  for s in spur slurm; do use "$s"; cancel_all; done
}

log "squeue on empty queues, fresh clusters ($RUNS runs each, alternating)"
sample spur ctld_rss_idle_mb "$(($(rss_kb "$SPURCTLD_PID") / 1024))"
sample slurm ctld_rss_idle_mb "$(($(rss_kb "$SLURMCTLD_PID") / 1024))"
squeue_runs squeue_empty_ms
for ((rep = 1; rep <= REPS; rep++)); do
  phase_held "$rep"
  if [ $((rep % 2)) = 1 ]; then order="spur slurm"; else order="slurm spur"; fi
  for s in $order; do phase_submit "$s" "$rep"; done
done
# Finished jobs stay in the controller's memory for MinJobAge (300 s in both), and
# squeue reads them too: the queue is empty again, but the controllers remember
# thousands of jobs.
REMEMBERED=""
for s in spur slurm; do
  use "$s"
  n=$($SQUEUE -h -t all -o %i | wc -l)
  REMEMBERED="$REMEMBERED $s=$n"
  sample "$CUR" ctld_rss_end_mb "$(($(rss_kb "$(ctld_pid)") / 1024))"
done
log "squeue on empty queues with finished jobs remembered ($REMEMBERED; $RUNS runs each, alternating)"
squeue_runs squeue_remembered_ms

# ------------------------------------------------------------------ report
log "done; raw samples in $SAMPLES"
python3 - "$SAMPLES" "$N" "$PAR" "$RUNS" "$REPS" "$PROFILE" "$SLURM_VERSION" "$SPUR_UP_S" "$SLURM_UP_S" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$REMEMBERED" <<'EOF'
import sys, statistics, collections
path, n, par, runs, reps, profile, slurmv, spur_up, slurm_up, ncpu, load, remembered = sys.argv[1:]
rem = dict(x.split("=") for x in remembered.split())
d = collections.defaultdict(list)
for line in open(path):
    s, m, v = line.rstrip('\n').split('\t')
    d[(s, m)].append(float(v))
def med(x): return statistics.median(x)
def p90(x):
    x = sorted(x)
    k = 0.9 * (len(x) - 1); f = int(k); c = min(f + 1, len(x) - 1)
    return x[f] + (x[c] - x[f]) * (k - f)
def rng(x): return f"{min(x):.4g}–{max(x):.4g}" if len(x) > 1 else ""
rows = [  # key, label, unit, higher_is_better, stat
    ("submit_loop_per_s", f"sbatch --wrap=true, {n} in a loop", "jobs/s", True, "med"),
    ("submit_par_per_s", f"the same, {par} parallel submitters", "jobs/s", True, "med"),
    ("submit_par_held_per_s", f"the same with --hold (jobs stay pending)", "jobs/s", True, "med"),
    ("complete_loop_s", f"first submit -> all {n} loop jobs done", "s", False, "med"),
    ("complete_par_s", f"first submit -> all {n} parallel jobs done", "s", False, "med"),
    ("squeue_1000_ms", f"squeue, {n} pending, median", "ms", False, "med"),
    ("squeue_1000_ms", f"squeue, {n} pending, p90", "ms", False, "p90"),
    ("squeue_empty_ms", "squeue, empty queue, median", "ms", False, "med"),
    ("squeue_empty_ms", "squeue, empty queue, p90", "ms", False, "p90"),
    ("squeue_remembered_ms", f"squeue, empty, {rem.get('spur','?')}/{rem.get('slurm','?')} done jobs kept, median", "ms", False, "med"),
    ("squeue_remembered_ms", f"squeue, empty, {rem.get('spur','?')}/{rem.get('slurm','?')} done jobs kept, p90", "ms", False, "p90"),
    ("ctld_cpu_loop_s", f"controller CPU for the {n}-job loop", "s", False, "med"),
    ("machine_cpu_loop_ms_per_job", "whole-machine CPU per loop job (noisy)", "ms", False, "med"),
    ("ctld_rss_idle_mb", "controller RSS, fresh and idle", "MB", False, "med"),
    ("ctld_rss_1000_mb", f"controller RSS, {n} pending (fresh)", "MB", False, "med"),
    ("ctld_rss_end_mb", "controller RSS at the end", "MB", False, "med"),
]
print()
print(f"Spur ({profile} build) vs {slurmv} on {ncpu} cores (load avg at the end: {load})")
print(f"submission phases: {reps} repetitions, alternating which system goes first (median, range);")
print(f"squeue: {runs} runs per system and measure, alternating Spur/Slurm call by call; 'pending' and")
print(f"'empty' on fresh clusters; 'done jobs kept' (Spur/Slurm) at the end, when both still remember")
print(f"the finished jobs of the run (MinJobAge=300 s).")
if profile == "debug":
    print("NOTE: debug build of Spur: its squeue is ~2.5x and its per-job CPU ~1.3x those of a release")
    print("      build; quote BENCH_PROFILE=release figures.")
print(f"cluster start: Spur {spur_up} s, Slurm (start.sh --clean, with slurmdbd + MariaDB) {slurm_up} s")
print()
hdr = f"| {'measure':<52} | {'Spur':>26} | {'Slurm 22.05':>26} | {'Spur vs Slurm':>17} |"
print(hdr); print("|" + "|".join("-" * (len(c)) for c in hdr.split("|")[1:-1]) + "|")
machine = []
for key, label, unit, hib, stat in rows:
    a, b = d.get(("spur", key)), d.get(("slurm", key))
    if not a or not b: continue
    f = med if stat == "med" else p90
    va, vb = f(a), f(b)
    ratio = (va / vb if hib else vb / va) if va > 0 and vb > 0 else float("nan")
    word = f"{ratio:.2f}x faster" if ratio >= 1 else f"{1/ratio:.2f}x slower"
    if key.startswith("ctld_rss"):
        word = f"{va/vb:.2f}x the memory"
    elif key.startswith("ctld_cpu") or key.startswith("machine_cpu"):
        word = f"{va/vb:.2f}x the CPU"
    def cell(v, xs):
        r = rng(xs) if stat == "med" and len(xs) <= 10 else ""
        return f"{v:.4g} {unit}" + (f" ({r})" if r else "")
    print(f"| {label:<52} | {cell(va, a):>26} | {cell(vb, b):>26} | {word:>17} |")
    if key.startswith("ctld_") or key.startswith("machine_"): continue
    m = key if stat == "med" else key.replace("_ms", "_p90_ms")
    if stat == "med" and key.startswith("squeue"): m = key.replace("_ms", "_median_ms")
    machine.append(f"spur_{m}={va:.4g} slurm_{m}={vb:.4g} ratio={ratio:.3f}")
print()
print("# ratio = how many times faster Spur is (rates: spur/slurm, times: slurm/spur)")
for l in machine: print(l)
EOF

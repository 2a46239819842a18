#!/bin/bash
# Side-by-side speed of parallel launch (srun), Spur vs real Slurm 22.05, in one run.
#
#   bash bench/srun.sh          (or `make bench-srun`)
#
# Starts a Slurm 22.05 cluster of BENCH_SRUN_NODES (100) slurmd on this host (one `slurmd -N`
# per node, the reference's plugins and settings, its own munged, ports and directories, no
# slurmdbd) and a Spur cluster of as many agents (`spur cluster up --nodes N`), every node with
# 4 CPUs and 4,000 MB, then times, for each system, BENCH_SRUN_RUNS (20) runs of:
#   srun_n1        `srun -N1 true`                      (srun makes its own allocation)
#   srun_n2n8      `srun -N2 -n8 true`                  (its own allocation, 8 tasks on 2 nodes)
#   step_in_alloc  `srun --jobid=J -N1 -n1 true`        (a step in a `salloc -N2 --no-shell`)
#   srun_nall      `srun -N<BENCH_SRUN_NODES> true`     (every node of the cluster)
#   mpi_pmi2       `srun -N2 -n8 --mpi=pmi2 hello`      (MPICH, slurm-tests/scripts/mpi_hello.c)
#   mpi_pmix_n1    `srun -N1 -n4 --mpi=pmix hello`      (Open MPI direct launch, one node)
#   mpi_pmix       `srun -N2 -n8 --mpi=pmix hello`      (Open MPI over two nodes: Slurm 22.05's
#                  two slurmd on one host share a PMIx directory and fail, so Spur's alone)
# (the MPI measures launch-to-finish of the whole program; BENCH_SRUN_MPI=0 skips them)
# alternating Spur/Slurm run by run (and which goes first). Before each run of a measure
# that makes its own allocation the system's queue is empty (not timed). Prints a table, then
# one machine-readable line per measure and statistic:
#   spur_<m>_median_ms=.. slurm_<m>_median_ms=.. ratio=..    (and the same for _p99_ms)
# where ratio is how many times faster Spur is (slurm/spur; >1 means Spur is faster).
#
# Environment:
#   BENCH_PROFILE=debug|release  which Spur build to use (default debug; release builds it)
#   BENCH_SRUN_RUNS=20  BENCH_SRUN_NODES=100
#   BENCH_SLURM_NODES   Slurm's node count if it must differ (default BENCH_SRUN_NODES)
#   BENCH_SLURM_PORT    first of Slurm's ports: slurmctld, then one per slurmd (default 28100)
#   SLURM_BENCH_DIR  (default /tmp/spur-bench-srun-slurm)   SPUR_BENCH_DIR (default /tmp/spur-bench-srun-spur)
#   BENCH_OUT        raw samples and logs (default /tmp/spur-bench-srun-out)
#   BENCH_NO_BUILD=1 use the existing binaries without running cargo
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${BENCH_SRUN_RUNS:-20}
NODES=${BENCH_SRUN_NODES:-100}
SNODES=${BENCH_SLURM_NODES:-$NODES}
PORT=${BENCH_SLURM_PORT:-28100}
PROFILE=${BENCH_PROFILE:-debug}
SB=${SLURM_BENCH_DIR:-/tmp/spur-bench-srun-slurm}
SPUR_DIR=${SPUR_BENCH_DIR:-/tmp/spur-bench-srun-spur}
OUT=${BENCH_OUT:-/tmp/spur-bench-srun-out}
CPUS=4
MEM=4000

log() { echo "[bench-srun $(date +%T)] $*" >&2; }
die() { echo "[bench-srun] ERROR: $*" >&2; exit 1; }

case "$PROFILE" in
  debug|release) ;;
  *) die "BENCH_PROFILE must be debug or release, not '$PROFILE'" ;;
esac
[[ "$RUNS" =~ ^[0-9]+$ ]] && [ "$RUNS" -gt 0 ] || die "bad BENCH_SRUN_RUNS"
[[ "$NODES" =~ ^[0-9]+$ ]] && [ "$NODES" -ge 2 ] || die "BENCH_SRUN_NODES must be 2 or more"
[[ "$SNODES" =~ ^[0-9]+$ ]] && [ "$SNODES" -ge 2 ] || die "BENCH_SLURM_NODES must be 2 or more"
[[ "$PORT" =~ ^[0-9]+$ ]] && [ $((PORT + SNODES)) -lt 32768 ] || die "bad BENCH_SLURM_PORT"
for c in srun salloc squeue scancel sinfo; do [ -x /usr/bin/$c ] || die "/usr/bin/$c missing (apt-get install slurm-wlm)"; done
for c in slurmctld slurmd munged mungekey; do [ -x /usr/sbin/$c ] || die "/usr/sbin/$c missing (apt-get install slurm-wlm munge)"; done
command -v python3 >/dev/null || die "python3 is needed for the statistics"

# Nothing from the caller's environment may steer either system's commands.
for v in $(compgen -e | grep -E '^(SLURM_|SBATCH_|SQUEUE_|SCANCEL_|SALLOC_|SRUN_|SINFO_)'); do unset "$v"; done

# ------------------------------------------------------------------ build
if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
  log "building Spur ($PROFILE)"
  if [ "$PROFILE" = release ]; then
    (cd "$ROOT" && cargo build --workspace --bins --release) >&2 || die "cargo build failed"
  else
    (cd "$ROOT" && cargo build --workspace --bins) >&2 || die "cargo build failed"
  fi
fi
TGT=${CARGO_TARGET_DIR:-$ROOT/target}
[ -x "$TGT/$PROFILE/spur" ] || die "$TGT/$PROFILE/spur not built"

rm -rf "$OUT"; mkdir -p "$OUT/bin" "$OUT/work"
# A private copy of the binaries: the tree may be rebuilt while we run.
for b in spur spurctld spurd spurstepd; do cp "$TGT/$PROFILE/$b" "$OUT/bin/$b" || die "cannot copy $b"; done
SPUR_BIN=$OUT/bin/spur
cd "$OUT/work" || die "cannot enter $OUT/work"
SAMPLES=$OUT/samples.tsv     # system <TAB> measure <TAB> start <TAB> end (EPOCHREALTIME)
: > "$SAMPLES"

# ------------------------------------------------------------------ clusters
SLURM_STARTED=0
SPUR_STARTED=0
alive() { # PIDFILE COMM
  local p
  [ -s "$1" ] || return 1
  p=$(cat "$1" 2>/dev/null) || return 1
  [[ "$p" =~ ^[0-9]+$ ]] && [ "$(cat /proc/$p/comm 2>/dev/null)" = "$2" ]
}
# stop_slurm: only what this script started, by the pid files under $SB
stop_slurm() {
  local f p left
  for f in "$SB"/run/slurmd.*.pid; do
    alive "$f" slurmd && kill -TERM "$(cat "$f")" 2>/dev/null
  done
  alive "$SB/run/slurmctld.pid" slurmctld && kill -TERM "$(cat "$SB/run/slurmctld.pid")" 2>/dev/null
  for ((i = 0; i < 300; i++)); do
    left=0
    for f in "$SB"/run/slurmd.*.pid "$SB/run/slurmctld.pid"; do
      alive "$f" "$(basename "$f" | cut -d. -f1)" && left=1
    done
    [ $left = 0 ] && break
    sleep 0.1
  done
  for f in "$SB"/run/slurmd.*.pid "$SB/run/slurmctld.pid"; do
    alive "$f" "$(basename "$f" | cut -d. -f1)" && kill -KILL "$(cat "$f")" 2>/dev/null
  done
  # slurmstepd left behind by our slurmd carry our marker in their environment
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || continue
    { tr '\0' '\n' < "$p/environ"; } 2>/dev/null | grep -qx "SPUR_BENCH_SRUN_TAG=$SB" && kill -KILL "${p#/proc/}" 2>/dev/null
  done
  alive "$SB/munge/munged.pid" munged && kill -TERM "$(cat "$SB/munge/munged.pid")" 2>/dev/null
  return 0
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for j in $(jobs -p); do kill "$j" 2>/dev/null; done
  if [ $SPUR_STARTED = 1 ]; then
    log "stopping Spur ($SPUR_DIR)"
    "$SPUR_BIN" cluster down --dir "$SPUR_DIR" >&2 || true
  fi
  if [ $SLURM_STARTED = 1 ]; then
    log "stopping Slurm ($SB)"
    stop_slurm
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port_open() { (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null; }
wait_for() { # DESC TIMEOUT_S CMD...
  local desc=$1 t=$2; shift 2
  local end=$((SECONDS + t))
  until "$@" > /dev/null 2>&1; do
    [ $SECONDS -ge $end ] && die "timed out waiting for $desc"
    sleep 0.3
  done
}

# Real Slurm: the reference cluster's settings (bench/../reference start.sh: munge, cons_tres,
# backfill, proctrack/linuxproc, task/none, config_overrides, NoInAddrAny), with SNODES
# nodes on ports PORT+1.. and no accounting daemon (slurmdbd and MariaDB would only add work
# to Slurm's side; the reference's start.sh has its six nodes and fixed ports built in).
HOST=$(hostname -s)
case "$(getent ahostsv4 "$HOST" | awk 'NR==1{print $1}')" in
  127.*) ;;
  *) die "hostname $HOST does not resolve to 127.x (Slurm's NoInAddrAny would bind elsewhere)" ;;
esac
if alive "$SB/run/slurmctld.pid" slurmctld || alive "$SB/munge/munged.pid" munged; then
  log "a Slurm cluster from an earlier run is still up in $SB; stopping it"
  stop_slurm
  sleep 1
fi
busy=""
for ((p = PORT; p <= PORT + SNODES; p++)); do port_open $p && busy="$busy $p"; done
[ -z "$busy" ] || die "ports$busy are in use; set BENCH_SLURM_PORT to a free run of $((SNODES + 1))"

log "starting Slurm 22.05 with $SNODES slurmd under $SB (ports $PORT-$((PORT + SNODES)))"
SLURM_STARTED=1
t0=$EPOCHREALTIME
rm -rf "$SB"
mkdir -p "$SB"/{etc,log,run,state,spool,munge}
W=${#SNODES}; [ "$W" -lt 3 ] && W=3
LAST=$(printf "%0${W}d" "$SNODES")
cat > "$SB/etc/slurm.conf" <<EOF
# bench/srun.sh: Slurm 22.05, $SNODES slurmd on one host -- $SB
ClusterName=srunbench
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SB/munge/munge.socket.2
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
StateSaveLocation=$SB/state
SlurmdSpoolDir=$SB/spool/slurmd.%n
SlurmctldPidFile=$SB/run/slurmctld.pid
SlurmdPidFile=$SB/run/slurmd.%n.pid
SlurmctldLogFile=$SB/log/slurmctld.log
SlurmdLogFile=$SB/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=500
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=node[$(printf "%0${W}d" 1)-$LAST] NodeAddr=127.0.0.1 Port=$((PORT + 1))-$((PORT + SNODES)) CPUs=$CPUS Sockets=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=node[$(printf "%0${W}d" 1)-$LAST] Default=YES MaxTime=INFINITE State=UP
EOF
export SPUR_BENCH_SRUN_TAG=$SB   # marker in every Slurm daemon's environment (stop_slurm)
chown munge:munge "$SB/munge"; chmod 0755 "$SB/munge"
runuser -u munge -- mungekey -c -k "$SB/munge/munge.key" -b 1024 || die "mungekey failed"
chmod 0400 "$SB/munge/munge.key"
runuser -u munge -- env SPUR_BENCH_SRUN_TAG="$SB" munged --socket="$SB/munge/munge.socket.2" \
  --key-file="$SB/munge/munge.key" --pid-file="$SB/munge/munged.pid" --log-file="$SB/munge/munged.log" \
  --seed-file="$SB/munge/munged.seed" --num-threads=4 || die "munged failed"
wait_for munged 15 bash -c "munge -S $SB/munge/munge.socket.2 -n | unmunge -S $SB/munge/munge.socket.2"
export SLURM_CONF=$SB/etc/slurm.conf
setsid /usr/sbin/slurmctld -i < /dev/null > "$SB/log/slurmctld.stdout" 2>&1
wait_for "slurmctld (scontrol ping)" 60 bash -c '/usr/bin/scontrol ping | grep -q UP'
for ((i = 1; i <= SNODES; i++)); do
  setsid /usr/sbin/slurmd -N "$(printf "node%0${W}d" $i)" < /dev/null > "$SB/log/slurmd.$i.stdout" 2>&1 \
    || die "slurmd node$i failed to start (see $SB/log)"
done
slurm_idle() { [ "$(/usr/bin/sinfo -h -N -t idle -o %N | wc -l)" = "$SNODES" ]; }
wait_for "all $SNODES Slurm nodes idle" 180 slurm_idle
SLURM_UP_S=$(python3 -c "print(f'{$EPOCHREALTIME-$t0:.1f}')")
unset SLURM_CONF

log "starting Spur with $NODES agents under $SPUR_DIR"
if [ -d "$SPUR_DIR/run" ]; then "$SPUR_BIN" cluster down --dir "$SPUR_DIR" >&2 || true; fi
rm -rf "$SPUR_DIR"
SPUR_STARTED=1
t0=$EPOCHREALTIME
"$SPUR_BIN" cluster up --dir "$SPUR_DIR" --nodes "$NODES" --cpus $CPUS --memory $MEM > "$OUT/spur-up.log" 2>&1 \
  || { cat "$OUT/spur-up.log" >&2; die "spur cluster up failed"; }
grep -q "^export SLURM_CONF=$SPUR_DIR/slurm.conf$" "$OUT/spur-up.log" || die "unexpected output from spur cluster up: $(cat "$OUT/spur-up.log")"
spur_idle() { [ "$(SLURM_CONF=$SPUR_DIR/slurm.conf "$SPUR_DIR/bin/sinfo" -h -N -t idle -o %N | wc -l)" = "$NODES" ]; }
wait_for "all $NODES Spur nodes idle" 120 spur_idle
SPUR_UP_S=$(python3 -c "print(f'{$EPOCHREALTIME-$t0:.1f}')")

# ------------------------------------------------------------------ which commands
# use SYSTEM: point SLURM_CONF and the command paths at one system, never via $PATH.
use() {
  case $1 in
    slurm)
      export SLURM_CONF=$SB/etc/slurm.conf
      BIN=/usr/bin ;;
    spur)
      export SLURM_CONF=$SPUR_DIR/slurm.conf
      BIN=$SPUR_DIR/bin ;;
  esac
  CUR=$1
}
[ "$(readlink -f "$SPUR_DIR/bin/srun")" = "$(readlink -f "$SPUR_BIN")" ] || die "$SPUR_DIR/bin/srun is not $SPUR_BIN"
use slurm; SLURM_VERSION=$($BIN/srun --version)
[ "$($BIN/sinfo -h -o %D)" = "$SNODES" ] || die "Slurm's sinfo does not show $SNODES nodes"
use spur;  [ "$($BIN/sinfo -h -o %D)" = "$NODES" ] || die "Spur's sinfo does not show $NODES nodes"
[ "$($BIN/sinfo -h -o %R)" = debug ] || die "Spur's sinfo does not show partition debug"

wait_empty() { # until this system's queue shows no job (60 s at most)
  local end=$((SECONDS + 60))
  while [ -n "$($BIN/squeue -h -o %i 2>/dev/null)" ]; do
    [ $SECONDS -ge $end ] && die "$CUR: queue not empty after 60 s: $($BIN/squeue 2>&1 | head -5)"
    sleep 0.05
  done
}

# check DESC EXPECTED CMD...: on the current system, the command's output, counted line by
# line (`uniq -c`), must be EXPECTED (not timed)
check() {
  local desc=$1 want=$2 got; shift 2
  got=$("$@" 2> "$OUT/$CUR-check.err" | sort | uniq -c | awk '{print $1"x"$2}' | tr '\n' ' ')
  [ "$got" = "$want" ] || die "$CUR: $desc printed '$got', expected '$want' ($(head -3 "$OUT/$CUR-check.err"))"
}

# timed MEASURE CMD...: one timed run on the current system; srun must exit 0
timed() {
  local m=$1 t0 t1; shift
  t0=$EPOCHREALTIME
  "$@" > /dev/null 2>> "$OUT/$CUR-$m.err" || die "$CUR: '$*' failed (exit $?; see $OUT/$CUR-$m.err)"
  t1=$EPOCHREALTIME
  printf '%s\t%s\t%s\t%s\n' "$CUR" "$m" "$t0" "$t1" >> "$SAMPLES"
}

# runs MEASURE FRESH ARGS...: $RUNS timed `srun ARGS...` per system, alternating systems
# (and which goes first); FRESH=1 waits for an empty queue before each run (not timed)
runs() {
  local m=$1 fresh=$2 i s order; shift 2
  for ((i = 0; i < RUNS; i++)); do
    if [ $((i % 2)) = 0 ]; then order="spur slurm"; else order="slurm spur"; fi
    for s in $order; do
      use "$s"
      [ "$fresh" = 1 ] && wait_empty
      timed "$m" $BIN/srun "$@"
    done
  done
}

NCOUNT() { if [ "$CUR" = spur ]; then echo "$NODES"; else echo "$SNODES"; fi; }

# ------------------------------------------------------------------ checks (not timed)
log "checking that each srun does what it says"
for s in spur slurm; do
  use "$s"
  check "srun -N1 printenv SLURM_NNODES" "1x1 " $BIN/srun -N1 printenv SLURM_NNODES
  check "srun -N2 -n8 printenv SLURM_NODEID" "4x0 4x1 " $BIN/srun -N2 -n8 printenv SLURM_NODEID
  n=$(NCOUNT)
  got=$($BIN/srun -N"$n" printenv SLURMD_NODENAME 2> "$OUT/$CUR-check.err" | sort -u | wc -l)
  [ "$got" = "$n" ] || die "$CUR: srun -N$n ran on $got distinct nodes ($(head -3 "$OUT/$CUR-check.err"))"
  wait_empty
done

# ------------------------------------------------------------------ measures
log "srun -N1 true ($RUNS runs each, alternating)"
runs srun_n1 1 -N1 true
log "srun -N2 -n8 true ($RUNS runs each, alternating)"
runs srun_n2n8 1 -N2 -n8 true

log "steps in an allocation: salloc -N2 --no-shell, then srun --jobid=J -N1 -n1 true"
declare -A ALLOC
for s in spur slurm; do
  use "$s"
  wait_empty
  out=$($BIN/salloc -N2 --no-shell 2>&1) || die "$CUR: salloc -N2 --no-shell failed: $out"
  j=$(printf '%s\n' "$out" | sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' | head -1)
  [ -n "$j" ] || die "$CUR: no job id in salloc's output: $out"
  ALLOC[$s]=$j
  check "srun --jobid=$j -N1 -n1 printenv SLURM_JOB_ID" "1x$j " $BIN/srun --jobid="$j" -N1 -n1 printenv SLURM_JOB_ID
done
for ((i = 0; i < RUNS; i++)); do
  if [ $((i % 2)) = 0 ]; then order="spur slurm"; else order="slurm spur"; fi
  for s in $order; do
    use "$s"
    timed step_in_alloc $BIN/srun --jobid="${ALLOC[$s]}" -N1 -n1 true
  done
done
for s in spur slurm; do use "$s"; $BIN/scancel "${ALLOC[$s]}"; wait_empty; done

log "srun -N$NODES true (Slurm: -N$SNODES; $RUNS runs each, alternating)"
for ((i = 0; i < RUNS; i++)); do
  if [ $((i % 2)) = 0 ]; then order="spur slurm"; else order="slurm spur"; fi
  for s in $order; do
    use "$s"
    wait_empty
    timed srun_nall $BIN/srun -N"$(NCOUNT)" true
  done
done

# ------------------------------------------------------------------ MPI
SLURM_PMIX_N2=skipped
if [ "${BENCH_SRUN_MPI:-1}" != 0 ]; then
  for c in mpicc.mpich mpicc.openmpi; do command -v $c > /dev/null || die "$c missing (scripts/setup.sh installs it)"; done
  mpicc.mpich -o "$OUT/work/hello_mpich" "$ROOT/slurm-tests/scripts/mpi_hello.c" || die "mpicc.mpich failed"
  mpicc.openmpi -o "$OUT/work/hello_ompi" "$ROOT/slurm-tests/scripts/mpi_hello.c" || die "mpicc.openmpi failed"
  # every node is on this host: Open MPI over TCP on the loopback (README.md, MPI)
  export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
  # mpi_check N CMD...: N ranks each print the sum of 0..N-1
  mpi_check() {
    local n=$1 got; shift
    got=$("$@" 2> "$OUT/$CUR-mpi.err" | grep -c "of $n sum $((n * (n - 1) / 2)) on ")
    [ "$got" = "$n" ]
  }
  log "checking the MPI programs on each system"
  for s in spur slurm; do
    use "$s"
    mpi_check 8 $BIN/srun -N2 -n8 --mpi=pmi2 ./hello_mpich || die "$CUR: srun --mpi=pmi2 hello_mpich failed ($(head -3 "$OUT/$CUR-mpi.err"))"
    mpi_check 4 $BIN/srun -N1 -n4 --mpi=pmix ./hello_ompi || die "$CUR: srun -N1 --mpi=pmix hello_ompi failed ($(head -3 "$OUT/$CUR-mpi.err"))"
    wait_empty
  done
  # what each system gives a PMIx task (compared by hand: $OUT/<system>-pmix-env.txt)
  for s in spur slurm; do
    use "$s"
    $BIN/srun -N1 -n1 --mpi=pmix env 2> /dev/null | grep -E '^(PMIX|OMPI|SLURM_PMIX|SLURM_MPI)' | sed 's/=.*//' | sort > "$OUT/$s-pmix-env.txt"
    wait_empty
  done
  use spur
  mpi_check 8 $BIN/srun -N2 -n8 --mpi=pmix ./hello_ompi || die "spur: srun -N2 --mpi=pmix hello_ompi failed ($(head -3 "$OUT/spur-mpi.err"))"
  use slurm
  if mpi_check 8 timeout 60 $BIN/srun -N2 -n8 --mpi=pmix ./hello_ompi; then SLURM_PMIX_N2=works; else
    SLURM_PMIX_N2="fails: $(grep -m1 -i error "$OUT/slurm-mpi.err" | cut -c1-120)"; fi
  $BIN/scancel -u root 2>/dev/null; wait_empty
  log "Slurm's srun -N2 --mpi=pmix here: $SLURM_PMIX_N2"
  log "srun -N2 -n8 --mpi=pmi2 hello_mpich ($RUNS runs each, alternating)"
  runs mpi_pmi2 1 -N2 -n8 --mpi=pmi2 ./hello_mpich
  log "srun -N1 -n4 --mpi=pmix hello_ompi ($RUNS runs each, alternating)"
  runs mpi_pmix_n1 1 -N1 -n4 --mpi=pmix ./hello_ompi
  log "srun -N2 -n8 --mpi=pmix hello_ompi ($RUNS runs$([ "$SLURM_PMIX_N2" = works ] && echo " each, alternating" || echo ", Spur only"))"
  for ((i = 0; i < RUNS; i++)); do
    for s in spur slurm; do
      [ $s = slurm ] && [ "$SLURM_PMIX_N2" != works ] && continue
      use "$s"; wait_empty
      timed mpi_pmix $BIN/srun -N2 -n8 --mpi=pmix ./hello_ompi
    done
  done
fi

# ------------------------------------------------------------------ report
log "done; raw samples in $SAMPLES"
python3 - "$SAMPLES" "$RUNS" "$PROFILE" "$SLURM_VERSION" "$SPUR_UP_S" "$SLURM_UP_S" "$(nproc)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)" "$NODES" "$SNODES" "$SLURM_PMIX_N2" <<'EOF'
import sys, statistics, collections
path, runs, profile, slurmv, spur_up, slurm_up, ncpu, load, nodes, snodes, slurm_pmix = sys.argv[1:]
d = collections.defaultdict(list)
for line in open(path):
    s, m, t0, t1 = line.rstrip('\n').split('\t')
    d[(s, m)].append((float(t1) - float(t0)) * 1000)
def med(x): return statistics.median(x)
def pct(x, q):
    x = sorted(x)
    k = q * (len(x) - 1); f = int(k); c = min(f + 1, len(x) - 1)
    return x[f] + (x[c] - x[f]) * (k - f)
all_n = f"srun -N{nodes} true" + (f" (Slurm: -N{snodes})" if nodes != snodes else "")
rows = [
    ("srun_n1", "srun -N1 true (own allocation)"),
    ("srun_n2n8", "srun -N2 -n8 true (own allocation)"),
    ("step_in_alloc", "srun --jobid=J -N1 -n1 true (in salloc -N2)"),
    ("srun_nall", all_n),
    ("mpi_pmi2", "srun -N2 -n8 --mpi=pmi2 MPICH hello"),
    ("mpi_pmix_n1", "srun -N1 -n4 --mpi=pmix Open MPI hello"),
    ("mpi_pmix", "srun -N2 -n8 --mpi=pmix Open MPI hello"),
]
print()
print(f"Spur ({profile} build) vs {slurmv} on {ncpu} cores (load avg at the end: {load})")
print(f"{runs} runs per system and measure, alternating Spur/Slurm run by run; wall time of the")
print(f"srun command; clusters of {nodes} (Spur) and {snodes} (Slurm) nodes with 4 CPUs each, all on this host.")
if profile == "debug":
    print("NOTE: debug build of Spur; quote BENCH_PROFILE=release figures.")
print(f"cluster start: Spur {spur_up} s, Slurm (munged, slurmctld, {snodes} slurmd) {slurm_up} s")
print()
hdr = f"| {'measure':<44} | {'Spur median (p99, max)':>26} | {'Slurm median (p99, max)':>26} | {'median':>14} | {'p99':>14} |"
print(hdr); print("|" + "|".join("-" * (len(c)) for c in hdr.split("|")[1:-1]) + "|")
machine = []
def word(r): return f"{r:.2f}x faster" if r >= 1 else f"{1/r:.2f}x slower"
for key, label in rows:
    a, b = d.get(("spur", key)), d.get(("slurm", key))
    if a and not b and key == "mpi_pmix":
        ma, pa = med(a), pct(a, 0.99)
        print(f"| {label:<44} | {f'{ma:.1f} ({pa:.1f}, {max(a):.1f}) ms':>26} | {'fails (see below)':>26} | {'-':>14} | {'-':>14} |")
        machine.append(f"spur_{key}_median_ms={ma:.4g} slurm_{key}=fails")
        continue
    if not a or not b: continue
    ma, mb, pa, pb = med(a), med(b), pct(a, 0.99), pct(b, 0.99)
    rm, rp = mb / ma, pb / pa
    cell = lambda m, p, x: f"{m:.1f} ({p:.1f}, {max(x):.1f}) ms"
    print(f"| {label:<44} | {cell(ma, pa, a):>26} | {cell(mb, pb, b):>26} | {word(rm):>14} | {word(rp):>14} |")
    machine.append(f"spur_{key}_median_ms={ma:.4g} slurm_{key}_median_ms={mb:.4g} ratio={rm:.3f}")
    machine.append(f"spur_{key}_p99_ms={pa:.4g} slurm_{key}_p99_ms={pb:.4g} ratio={rp:.3f}")
print()
if slurm_pmix != "skipped":
    print(f"Slurm's srun -N2 -n8 --mpi=pmix on this host: {slurm_pmix}")
print("# ratio = how many times faster Spur is (slurm/spur)")
for l in machine: print(l)
EOF

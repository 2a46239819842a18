#!/bin/bash
# sacct over a large accounting store: Spur beside real Slurm 22.05 (slurmdbd + MariaDB),
# both loaded with the same generated job records.
#
#   bash bench/sacct.sh                      (1,000,000 jobs; BENCH_SACCT_10M=1 adds 10,000,000)
#
# 1. bench/gen_jobs.py writes N finished jobs and their steps (jobs.tsv, jobs.steps.tsv; the
#    column layout is at the top of gen_jobs.py) under $B/data, once per set of parameters
#    (the generator is deterministic, so a second run reuses the files).
# 2. run_slurm N: MariaDB (127.0.0.1:29306, own datadir, as user mysql, the reference
#    cluster's settings), its own munged and slurmdbd 22.05 (127.0.0.1:29819); registers the
#    cluster, accounts and users with sacctmgr (slurmdbd creates its tables), then bulk-loads the
#    TSV into <cluster>_job_table and <cluster>_step_table with LOAD DATA LOCAL INFILE
#    (association ids, TRES strings, usage columns filled as slurmdbd would), checks what
#    sacct prints for a few jobs and windows against the TSV, and measures.
# 3. run_spur N: the same on Spur: a one-node release cluster whose controller's own store
#    is loaded with the TSV (see run_spur below).
# Measures, each BENCH_SACCT_RUNS (20) times (median and p90), wall time of the command with
# its output to a file (the rows are counted after and must match the TSV):
#   user_day  sacct -u user0042 -S <day> -E <day+1> -X -P -n      (one user, one day)
#   jobid     sacct -j <id> -P -n                                 (20 ids spread over 1..N)
#   week_all  sacct -a -S <week> -E <week+7d> -X -P -n            (all users, one week)
#   empty     sacct -j <N+1> -P -n                                (no such job: the fixed cost)
# then the store's size on disk, the daemons' RSS after the queries, and the load time.
# The day is the 10th day before the reference time, the week the second week before it.
# Prints a table and writes $B/results/<side>-<N>.txt (key=value), raw samples beside it;
# with both sides, the ratio of each measure (slurm/spur: above 1 means Spur is faster).
#
# Environment:
#   BENCH_SACCT_DIR     everything under it (default /tmp/sacct-bench)
#   BENCH_SACCT_JOBS    the first size (default 1000000); BENCH_SACCT_10M=1 adds 10000000
#   BENCH_SACCT_DAYS=90 BENCH_SACCT_USERS=200 BENCH_SACCT_SEED=1
#   BENCH_SACCT_END     reference time of the records (default 2026-12-01, UTC)
#   BENCH_SACCT_RUNS=20
#   BENCH_SACCT_SLURM=0 / BENCH_SACCT_SPUR=0   skip a side
#   BENCH_SACCT_KEEP=1  leave the last Slurm side running at the end (stop it with
#                       BENCH_SACCT_STOP=1 bash bench/sacct.sh)
#   BENCH_SACCT_REUSE=1 measure a Slurm side left running with the same N loaded
# sacct -u resolves the user on the host: the script creates user0042 (uid 2042) if missing.
# Ports: MariaDB 29306, slurmdbd 29819 (slurmctld is not started; slurm.conf names 29817).
# Only 127.0.0.1. Only what this script started is stopped, by its pid files.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${BENCH_SACCT_DIR:-/tmp/sacct-bench}
N1=${BENCH_SACCT_JOBS:-1000000}
DAYS=${BENCH_SACCT_DAYS:-90}
USERS=${BENCH_SACCT_USERS:-200}
SEED=${BENCH_SACCT_SEED:-1}
END=${BENCH_SACCT_END:-2026-12-01}
RUNS=${BENCH_SACCT_RUNS:-20}
DB_PORT=29306
DBD_PORT=29819
CTLD_PORT=29817
CLUSTER=sacctbench
QUSER=user0042
SB=$B/slurm            # the Slurm side: etc, munge, mysql, log, run
RES=$B/results
DATA=$B/data

log() { echo "[bench-sacct $(date +%T)] $*" >&2; }
die() { echo "[bench-sacct] ERROR: $*" >&2; exit 1; }

[[ "$N1" =~ ^[0-9]+$ ]] && [ "$N1" -ge 1000 ] || die "BENCH_SACCT_JOBS must be 1000 or more"
[[ "$RUNS" =~ ^[0-9]+$ ]] && [ "$RUNS" -gt 0 ] || die "bad BENCH_SACCT_RUNS"
[[ "$USERS" =~ ^[0-9]+$ ]] && [ "$USERS" -gt 42 ] || die "BENCH_SACCT_USERS must be above 42 ($QUSER is queried)"
[ "$(id -u)" = 0 ] || die "run as root (MariaDB runs as mysql, munged as munge)"
SIZES=$N1
[ "${BENCH_SACCT_10M:-0}" = 1 ] && [ "$N1" != 10000000 ] && SIZES="$N1 10000000"

# Nothing from the caller's environment may steer Slurm's commands.
for v in $(compgen -e | grep -E '^(SLURM_|SACCT_)'); do unset "$v"; done
export TZ=UTC   # sacct prints and parses local time; the TSV's times are UTC

# ------------------------------------------------------------------ helpers
alive() { # PIDFILE COMM
  local p
  [ -s "$1" ] || return 1
  p=$(cat "$1" 2>/dev/null) || return 1
  [[ "$p" =~ ^[0-9]+$ ]] && [ "$(cat /proc/$p/comm 2>/dev/null)" = "$2" ]
}
port_open() { (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null; }
wait_for() { # DESC TIMEOUT_S CMD...
  local desc=$1 t=$2; shift 2
  local end=$((SECONDS + t))
  until "$@" > /dev/null 2>&1; do
    [ $SECONDS -ge $end ] && die "timed out waiting for $desc"
    sleep 0.3
  done
}
now() { echo "$EPOCHREALTIME"; }
since() { python3 -c "print(f'{$EPOCHREALTIME - $1:.1f}')"; }
rss_mb() { # PID [FIELD] -> VmRSS (or VmHWM, the peak) in MB
  awk -v f="${2:-VmRSS}:" '$1 == f {printf "%.0f", $2 / 1024}' "/proc/$1/status" 2>/dev/null || echo "?"
}
# peak_mb CMD...: the command's peak RSS in MB (one extra, untimed run under /usr/bin/time)
peak_mb() {
  [ -x /usr/bin/time ] || { echo "?"; return 0; }
  /usr/bin/time -f %M -o "$B/time.tmp" "$@" > /dev/null 2>&1 || { echo "?"; return 0; }
  awk '{printf "%.0f", $1 / 1024}' "$B/time.tmp"
}
epoch() { date -u -d "$1" +%s; }
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%S; }

# ------------------------------------------------------------------ the Slurm side's daemons
SLURM_STARTED=0
stop_slurm() { # only what we started, by the pid files under $SB
  local f comm i
  for f in "$SB/run/slurmdbd.pid:slurmdbd" "$SB/mysql/mysqld.pid:mariadbd" "$SB/munge/munged.pid:munged"; do
    comm=${f##*:}; f=${f%:*}
    alive "$f" "$comm" || continue
    kill -TERM "$(cat "$f")" 2>/dev/null || true
    for ((i = 0; i < 600; i++)); do alive "$f" "$comm" || break; sleep 0.1; done
    alive "$f" "$comm" && { log "$comm did not stop in 60 s; killing it"; kill -KILL "$(cat "$f")" 2>/dev/null || true; }
  done
  return 0
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ $SLURM_STARTED = 1 ]; then
    if [ "${BENCH_SACCT_KEEP:-0}" = 1 ]; then
      log "leaving the Slurm side running (SLURM_CONF=$SB/etc/slurm.conf; BENCH_SACCT_STOP=1 bash $0 stops it)"
    else
      log "stopping the Slurm side ($SB)"
      stop_slurm
    fi
  fi
  stop_spur
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "${BENCH_SACCT_STOP:-0}" = 1 ]; then
  stop_slurm
  exit 0
fi

# ------------------------------------------------------------------ packages
need=""
for p in slurmdbd:/usr/sbin/slurmdbd slurm-wlm-mysql-plugin:/usr/lib/x86_64-linux-gnu/slurm-wlm/accounting_storage_mysql.so \
         mariadb-server:/usr/sbin/mariadbd munge:/usr/sbin/munged slurm-client:/usr/bin/sacct; do
  [ -e "${p#*:}" ] || need="$need ${p%%:*}"
done
if [ -n "$need" ]; then
  log "installing$need"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need) >&2 || die "apt-get install$need failed"
fi
command -v python3 > /dev/null || die "python3 is needed (generator and statistics)"
SLURM_VERSION="slurm $(dpkg-query -W -f='${Version}' slurm-client 2>/dev/null || echo '?')"
case "$SLURM_VERSION" in *22.05*) ;; *) log "WARNING: $SLURM_VERSION, not 22.05" ;; esac

mkdir -p "$DATA" "$RES"

# ------------------------------------------------------------------ data
# gen N -> sets JOBS and STEPS (generated once per parameter set)
gen() {
  local n=$1 t0
  JOBS=$DATA/jobs-$n-d$DAYS-u$USERS-s$SEED-e$END.tsv
  STEPS=${JOBS%.tsv}.steps.tsv
  EXP=$RES/expect-$(basename "${JOBS%.tsv}")   # .txt and .jobs: what sacct must print (expect)
  if [ -s "$JOBS.done" ] && [ -s "$JOBS" ] && [ -s "$STEPS" ]; then
    log "reusing $JOBS"
  else
    log "generating $n jobs -> $JOBS"
    t0=$(now)
    rm -f "$JOBS.done"
    python3 "$ROOT/bench/gen_jobs.py" "$n" "$JOBS" --days "$DAYS" --users "$USERS" --seed "$SEED" --end "$END" \
      || die "gen_jobs.py failed"
    echo "gen_s=$(since "$t0")" > "$JOBS.done"
    log "generated in $(cut -d= -f2 "$JOBS.done") s"
  fi
  GEN_S=$(cut -d= -f2 "$JOBS.done")
}

# The queries' parameters, from the reference time: the day and week, the job ids.
END_S=$(epoch "$END")
DAY_S=$((END_S - 10 * 86400)); DAY_E=$((DAY_S + 86400))
WEEK_S=$((END_S - 14 * 86400)); WEEK_E=$((WEEK_S + 7 * 86400))
QUID=$((2000 + 10#${QUSER#user}))
jobids() { # N -> 20 ids spread over 1..N (the same on both sides)
  python3 -c "n=$1; print(' '.join(str(1 + (k * 7919 * 104729 + 12345) % n) for k in range(20)))"
}

# expect N: one pass over the TSVs -> $EXP.txt (key=value: the rows each query must print)
# and $EXP.jobs (what sacct -j must print for a few jobs, see check_jobs)
expect() {
  local n=$1
  [ -s "$EXP.txt" ] && [ "$EXP.txt" -nt "$JOBS" ] && return 0
  log "computing the expected answers from the TSV"
  python3 - "$JOBS" "$STEPS" "$n" "$QUSER" "$DAY_S" "$DAY_E" "$WEEK_S" "$WEEK_E" "$(jobids "$n")" \
    "$EXP.txt" "$EXP.jobs" <<'EOF'
import sys, time
jobs, steps, n, quser, ds, de, ws, we, ids, out, outjobs = sys.argv[1:]
ds, de, ws, we = int(ds), int(de), int(ws), int(we)
ids = [int(x) for x in ids.split()]
check = set(ids[:4]) | {1, int(n)}
want = set(ids) | check
# slurmdbd's window (as_mysql_jobacct_process.c): eligible && eligible < E && end >= S
user_day = week = 0
jl = {}
with open(jobs) as f:
    next(f)
    for line in f:
        c = line.rstrip('\n').split('\t')
        el, en = int(c[11]), int(c[13])
        if el < we and en >= ws: week += 1
        if c[2] == quser and el < de and en >= ds: user_day += 1
        j = int(c[0])
        if j in want: jl[j] = c
sl = {}
with open(steps) as f:
    next(f)
    for line in f:
        c = line.rstrip('\n').split('\t')
        j = int(c[0])
        if j in want: sl.setdefault(j, []).append(c)
rows_jobid = sum(1 + len(sl.get(j, [])) for j in ids)
with open(out, 'w') as o:
    print(f"user_day_rows={user_day}\nweek_all_rows={week}\njobid_rows={rows_jobid}", file=o)
def t(s): return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(int(s)))
def rss(kb):   # bytes in the store; sacct divides by 1024 while it divides exactly
    v, u = int(kb), 'K'
    for nu in 'MGT':
        if v % 1024 or v < 1024: break
        v //= 1024; u = nu
    return f"{v}{u}"
# sacct -j ID -P -n --format=JobID,JobName,User,Account,Partition,State,ExitCode,AllocCPUS,NNodes,NodeList,Start,End,MaxRSS
with open(outjobs, 'w') as o:
    for j in sorted(check):
        c = jl[j]
        print(f"{j}|{c[1]}|{c[2]}|{c[5]}|{c[6]}|{c[7]}|{c[8]}:{c[9]}|{c[16]}|{c[15]}|{c[18]}|{t(c[12])}|{t(c[13])}|", file=o)
        for s in sl.get(j, []):
            print(f"{j}.{s[1]}|{s[2]}||{c[5]}||{s[3]}|{s[4]}:{s[5]}|{s[10]}|{s[8]}|{s[12]}|{t(s[6])}|{t(s[7])}|{rss(s[13])}", file=o)
EOF
}

# ------------------------------------------------------------------ measuring (both sides)
SAMPLES=""
# measure SIDE KEY EXPECTED_ROWS CMD...: RUNS timed runs, output to a file, rows counted
# after; each run must print EXPECTED_ROWS lines ("" = any, but the same every run)
measure() {
  local side=$1 key=$2 want=$3 i t0 t1 rows; shift 3
  for ((i = 0; i < RUNS; i++)); do
    t0=$EPOCHREALTIME
    "$@" > "$B/out.tmp" 2> "$B/err.tmp" || die "$side: '$*' failed: $(head -3 "$B/err.tmp")"
    t1=$EPOCHREALTIME
    rows=$(wc -l < "$B/out.tmp")
    [ -z "$want" ] || [ "$rows" = "$want" ] || die "$side: '$*' printed $rows rows, expected $want"
    want=$rows
    printf '%s\t%s\t%s\t%s\t%s\n' "$side" "$key" "$t0" "$t1" "$rows" >> "$SAMPLES"
  done
}
# measure_ids SIDE N CMD...: one run per job id (the ids of jobids N, cycled to RUNS runs),
# CMD followed by the id; the rows of the 20 ids together must match the TSV
measure_ids() {
  local side=$1 n=$2 i t0 t1 rows total=0 id; shift 2
  local ids=($(jobids "$n"))
  for ((i = 0; i < RUNS; i++)); do
    id=${ids[$((i % 20))]}
    t0=$EPOCHREALTIME
    "$@" "$id" > "$B/out.tmp" 2> "$B/err.tmp" || die "$side: '$* $id' failed: $(head -3 "$B/err.tmp")"
    t1=$EPOCHREALTIME
    rows=$(wc -l < "$B/out.tmp")
    [ "$rows" -ge 2 ] || die "$side: '$* $id' printed $rows rows (a job and its batch step at least)"
    [ $i -lt 20 ] && total=$((total + rows))
    printf '%s\t%s\t%s\t%s\t%s\n' "$side" jobid "$t0" "$t1" "$rows" >> "$SAMPLES"
  done
  if [ "$RUNS" -ge 20 ]; then
    [ "$total" = "$(sed -n 's/^jobid_rows=//p' "$EXP.txt")" ] \
      || die "$side: sacct -j printed $total rows for the 20 jobs, expected $(sed -n 's/^jobid_rows=//p' "$EXP.txt")"
  fi
}
# The queries' arguments (after the sacct command)
USER_DAY_ARGS=(-u "$QUSER" -S "$(iso $DAY_S)" -E "$(iso $DAY_E)" -X -P -n)
WEEK_ARGS=(-a -S "$(iso $WEEK_S)" -E "$(iso $WEEK_E)" -X -P -n)
# measure_all SIDE N SACCT...: the checks, then every measure, with this side's sacct
measure_all() {
  local side=$1 n=$2; shift 2
  check_jobs "$side" "$n" "$@"
  measure "$side" user_day "$(sed -n 's/^user_day_rows=//p' "$EXP.txt")" "$@" "${USER_DAY_ARGS[@]}"
  measure_ids "$side" "$n" "$@" -P -n -j
  measure "$side" week_all "$(sed -n 's/^week_all_rows=//p' "$EXP.txt")" "$@" "${WEEK_ARGS[@]}"
  measure "$side" empty 0 "$@" -j $((n + 1)) -P -n
}
# check_jobs SIDE N CMD...: CMD -j ID -P -n --format=... for the jobs of $EXP.jobs must
# print those lines (the job line's MaxRSS is not compared)
FORMAT=JobID,JobName,User,Account,Partition,State,ExitCode,AllocCPUS,NNodes,NodeList,Start,End,MaxRSS
check_jobs() {
  local side=$1 n=$2 id; shift 2
  for id in $(cut -d'|' -f1 "$EXP.jobs" | grep -v '\.' | sort -un); do
    "$@" -j "$id" -P -n --format=$FORMAT > "$B/got.tmp" 2> "$B/err.tmp" || die "$side: sacct -j $id failed: $(head -3 "$B/err.tmp")"
    grep -E "^$id(\\.|\\|)" "$EXP.jobs" > "$B/want.tmp"
    # the job line's MaxRSS (last field) is the steps' largest on some versions: not compared
    if ! diff <(sed -E "/^$id\\|/s/[^|]*\$//" "$B/got.tmp") "$B/want.tmp" > "$B/diff.tmp"; then
      cat "$B/diff.tmp" >&2
      die "$side: sacct -j $id differs from the TSV (< sacct, > expected)"
    fi
  done
  log "$side: sacct -j prints the TSV's fields for jobs $(cut -d'|' -f1 "$EXP.jobs" | grep -v '\.' | sort -un | tr '\n' ' ')"
}

# sacct -u resolves the name (or uid) with getpwnam: the queried user must exist on this host.
# The bench makes it (uid = gid = 2000 + its number, no home, no shell) and leaves it.
ensure_quser() {
  getent passwd "$QUSER" > /dev/null && return 0
  getent passwd "$QUID" > /dev/null && die "uid $QUID is taken by $(getent passwd "$QUID" | cut -d: -f1); $QUSER cannot be made"
  log "creating the system user $QUSER (uid $QUID) that sacct -u needs"
  getent group "$QUID" > /dev/null || groupadd -g "$QUID" "$QUSER"
  useradd -M -N -g "$QUID" -u "$QUID" -d /nonexistent -s /usr/sbin/nologin "$QUSER" || die "useradd $QUSER failed"
}

# ------------------------------------------------------------------ Slurm
slurm_conf() {
  mkdir -p "$SB"/{etc,log,run,munge,mysql/data,mysql/tmp}
  cat > "$SB/etc/slurm.conf" <<EOF
# bench/sacct.sh: the accounting side of Slurm 22.05 only (no slurmctld) -- $SB
ClusterName=$CLUSTER
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$SB/munge/munge.socket.2
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
StateSaveLocation=$SB/run
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBD_PORT
# the MUNGE socket for talking to slurmdbd
AccountingStoragePass=$SB/munge/munge.socket.2
NodeName=cn[0001-1000] CPUs=64 RealMemory=512000 State=UNKNOWN
PartitionName=cpu Nodes=cn[0001-1000] Default=YES State=UP
EOF
  # slurmdbd has no -f: it reads slurmdbd.conf beside $SLURM_CONF, and refuses it unless 0600
  cat > "$SB/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$SB/munge/munge.socket.2
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
CommunicationParameters=NoInAddrAny
SlurmUser=root
DebugLevel=info
LogFile=$SB/log/slurmdbd.log
PidFile=$SB/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=slurmpw
StorageLoc=slurm_acct_db
EOF
  chmod 600 "$SB/etc/slurmdbd.conf"
  cat > "$SB/mysql/my.cnf" <<EOF
[mysqld]
user=mysql
datadir=$SB/mysql/data
socket=$SB/mysql/mysqld.sock
pid-file=$SB/mysql/mysqld.pid
log-error=$SB/mysql/mysqld.err
tmpdir=$SB/mysql/tmp
bind-address=127.0.0.1
port=$DB_PORT
# as the reference cluster (values slurmdbd checks for)
innodb_buffer_pool_size=1024M
innodb_log_file_size=64M
innodb_lock_wait_timeout=900
max_allowed_packet=64M
skip-name-resolve
local_infile=1
[client]
socket=$SB/mysql/mysqld.sock
port=$DB_PORT
EOF
}
sql() { mariadb --defaults-file="$SB/mysql/my.cnf" -u root "$@"; }

start_slurm() {
  local host ip t0 busy=""
  host=$(hostname -s)
  ip=$(getent ahostsv4 "$host" | awk 'NR==1{print $1}')
  case "$ip" in 127.*) ;; *) die "hostname $host resolves to '$ip', not 127.x (NoInAddrAny would bind there)" ;; esac
  if alive "$SB/run/slurmdbd.pid" slurmdbd || alive "$SB/mysql/mysqld.pid" mariadbd || alive "$SB/munge/munged.pid" munged; then
    log "the Slurm side of an earlier run is still up in $SB; stopping it"
    stop_slurm
  fi
  for p in $DB_PORT $DBD_PORT; do port_open $p && busy="$busy $p"; done
  [ -z "$busy" ] || die "ports$busy are in use by something this script did not start"
  SLURM_STARTED=1
  rm -rf "$SB"
  slurm_conf
  export SLURM_CONF=$SB/etc/slurm.conf

  chown munge:munge "$SB/munge"; chmod 0755 "$SB/munge"
  runuser -u munge -- mungekey -c -k "$SB/munge/munge.key" -b 1024 || die "mungekey failed"
  chmod 0400 "$SB/munge/munge.key"
  runuser -u munge -- munged --socket="$SB/munge/munge.socket.2" --key-file="$SB/munge/munge.key" \
    --pid-file="$SB/munge/munged.pid" --log-file="$SB/munge/munged.log" --seed-file="$SB/munge/munged.seed" \
    --num-threads=4 || die "munged failed"
  wait_for munged 15 bash -c "munge -S $SB/munge/munge.socket.2 -n | unmunge -S $SB/munge/munge.socket.2"

  chown -R mysql:mysql "$SB/mysql"
  mariadb-install-db --defaults-file="$SB/mysql/my.cnf" --user=mysql --auth-root-authentication-method=socket \
    > "$SB/mysql/install.log" 2>&1 || { cat "$SB/mysql/install.log" >&2; die "mariadb-install-db failed"; }
  setsid mariadbd --defaults-file="$SB/mysql/my.cnf" < /dev/null > "$SB/mysql/stdout.log" 2>&1 &
  wait_for "mariadbd" 60 sql -e 'select 1'
  sql -e "
    CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmpw';
    CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmpw';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
    FLUSH PRIVILEGES;"

  setsid /usr/sbin/slurmdbd < /dev/null > "$SB/log/slurmdbd.stdout" 2>&1 || die "slurmdbd failed (see $SB/log)"
  wait_for "slurmdbd port $DBD_PORT" 60 port_open $DBD_PORT
  wait_for "slurmdbd (sacctmgr)" 60 /usr/bin/sacctmgr -n list cluster
}

# register the cluster, the accounts and users (every user/account pair the TSV has) with
# sacctmgr, so that slurmdbd makes the cluster's tables and the associations
register_slurm() {
  local acct users
  /usr/bin/sacctmgr -i add cluster "$CLUSTER" > /dev/null || die "sacctmgr add cluster failed"
  cut -f3,6 "$JOBS" | tail -n +2 | sort -u > "$SB/pairs.tsv"
  for acct in $(cut -f2 "$SB/pairs.tsv" | sort -u); do
    /usr/bin/sacctmgr -i add account "$acct" Cluster="$CLUSTER" Description="$acct" Organization=bench > /dev/null \
      || die "sacctmgr add account $acct failed"
  done
  # users first with their primary account (the one most of their jobs use): DefaultAccount
  awk -F'\t' '{print $1"\t"$2}' <(cut -f3,6 "$JOBS" | tail -n +2 | sort | uniq -c | sort -k2,2 -k1,1nr \
    | awk '!seen[$2]++ {print $2"\t"$3}') > "$SB/primary.tsv"
  for acct in $(cut -f2 "$SB/primary.tsv" | sort -u); do
    users=$(awk -F'\t' -v a="$acct" '$2 == a {print $1}' "$SB/primary.tsv" | paste -sd,)
    /usr/bin/sacctmgr -i add user "$users" Account="$acct" DefaultAccount="$acct" Cluster="$CLUSTER" > /dev/null 2>&1 \
      || die "sacctmgr add user (account $acct) failed"
  done
  for acct in $(cut -f2 "$SB/pairs.tsv" | sort -u); do
    users=$(comm -23 <(sort "$SB/pairs.tsv") <(sort "$SB/primary.tsv") | awk -F'\t' -v a="$acct" '$2 == a {print $1}' | paste -sd,)
    [ -n "$users" ] || continue
    /usr/bin/sacctmgr -i add user "$users" Account="$acct" Cluster="$CLUSTER" > /dev/null 2>&1 \
      || die "sacctmgr add user (second account $acct) failed"
  done
  local want got
  want=$(wc -l < "$SB/pairs.tsv")
  got=$(sql -N -e "select count(*) from slurm_acct_db.${CLUSTER}_assoc_table where user not in ('', 'root') and deleted = 0")
  [ "$got" = "$want" ] || die "slurmdbd has $got user associations, the TSV $want user/account pairs"
  log "registered cluster $CLUSTER, $(cut -f2 "$SB/pairs.tsv" | sort -u | wc -l) accounts, $USERS users, $want associations"
}

# load_slurm: the TSVs into the cluster's job and step tables, as slurmdbd would have written
# them at job end (as_mysql_job.c): state and exit status as numbers, TRES strings
# (1=cpu, 2=mem MB, 4=node, 5=billing; a step's usage: 1=cpu ms, 2=rss bytes), node indices,
# the association of (user, account, no partition), QOS normal, batch step id -5.
load_slurm() {
  local jt=${CLUSTER}_job_table st=${CLUSTER}_step_table at=${CLUSTER}_assoc_table t0
  local inx="IF(@nodelist LIKE 'cn[%', CONCAT(CAST(SUBSTRING(@nodelist, 4, 4) AS UNSIGNED) - 1, '-', CAST(SUBSTRING(@nodelist, 9, 4) AS UNSIGNED) - 1), CAST(SUBSTRING(@nodelist, 3) AS UNSIGNED) - 1)"
  local state="CASE @state WHEN 'COMPLETED' THEN 3 WHEN 'CANCELLED' THEN 4 WHEN 'FAILED' THEN 5 WHEN 'TIMEOUT' THEN 6 END"
  local qos keys ids
  qos=$(sql -N -e "select id from slurm_acct_db.qos_table where name = 'normal'")
  [ -n "$qos" ] || die "no QOS normal in slurmdbd"
  # the associations as two lists for ELT(FIELD('user|account', keys...), ids...): with a
  # subquery into the association table per row the jobs load ten times slower
  read -r keys ids < <(sql -N -e "SET SESSION group_concat_max_len = 16777216;
    SELECT GROUP_CONCAT(CONCAT('''', user, '|', acct, '''') ORDER BY id_assoc), GROUP_CONCAT(id_assoc ORDER BY id_assoc)
    FROM slurm_acct_db.\`$at\` WHERE user NOT IN ('', 'root') AND \`partition\` = '' AND deleted = 0")
  [ -n "$ids" ] || die "no user associations in slurmdbd"
  t0=$(now)
  sql --local-infile=1 slurm_acct_db -e "
    SET unique_checks = 0;
    LOAD DATA LOCAL INFILE '$JOBS' INTO TABLE \`$jt\`
      FIELDS TERMINATED BY '\t' ESCAPED BY '' LINES TERMINATED BY '\n' IGNORE 1 LINES
      (@job_id, @name, @user, @uid, @gid, @account, @partition, @state, @ec, @sig, @submit, @eligible,
       @start, @end, @tl, @nn, @ncpus, @mem, @nodelist, @wd)
      SET job_db_inx = @job_id, id_job = @job_id, mod_time = @end, deleted = 0, account = @account,
        array_task_str = NULL, array_task_pending = 0, cpus_req = @ncpus, derived_ec = 0,
        exit_code = @ec * 256 + @sig, flags = 0, job_name = @name,
        id_assoc = ELT(FIELD(CONCAT(@user, '|', @account), $keys), $ids),
        id_array_job = 0, id_array_task = 4294967294, id_job = @job_id, id_qos = $qos, id_resv = 0,
        id_wckey = 0, id_user = @uid, id_group = @gid, het_job_id = 0, het_job_offset = 4294967294,
        kill_requid = NULL, state_reason_prev = 0, mem_req = @mem DIV @nn, nodelist = @nodelist,
        nodes_alloc = @nn, node_inx = $inx, \`partition\` = @partition, priority = 1, state = $state,
        timelimit = @tl, time_submit = @submit, time_eligible = @eligible, time_start = @start,
        time_end = @end, time_suspended = 0, work_dir = @wd,
        tres_alloc = CONCAT('1=', @ncpus, ',2=', @mem, ',4=', @nn, ',5=', @ncpus),
        tres_req = CONCAT('1=', @ncpus, ',2=', @mem, ',4=', @nn, ',5=', @ncpus);
    SHOW WARNINGS LIMIT 5;" > "$SB/load-jobs.log" 2>&1 || { cat "$SB/load-jobs.log" >&2; die "loading the jobs failed"; }
  LOAD_JOBS_S=$(since "$t0")
  log "jobs loaded in $LOAD_JOBS_S s"
  t0=$(now)
  sql --local-infile=1 slurm_acct_db -e "
    SET unique_checks = 0;
    LOAD DATA LOCAL INFILE '$STEPS' INTO TABLE \`$st\`
      FIELDS TERMINATED BY '\t' ESCAPED BY '' LINES TERMINATED BY '\n' IGNORE 1 LINES
      (@job_id, @step_id, @name, @state, @ec, @sig, @start, @end, @nn, @ntasks, @ncpus, @mem, @nodelist,
       @maxrss, @averss, @avecpu, @ucpu, @scpu)
      SET job_db_inx = @job_id, deleted = 0, exit_code = @ec * 256 + @sig,
        id_step = IF(@step_id = 'batch', -5, @step_id), step_het_comp = 4294967294, kill_requid = NULL,
        nodelist = @nodelist, nodes_alloc = @nn, node_inx = $inx, state = $state, step_name = @name,
        task_cnt = @ntasks, task_dist = IF(@step_id = 'batch', 0, 1), time_start = @start, time_end = @end,
        time_suspended = 0, user_sec = @ucpu DIV 1000000, user_usec = @ucpu MOD 1000000,
        sys_sec = @scpu DIV 1000000, sys_usec = @scpu MOD 1000000, act_cpufreq = 0, consumed_energy = 0,
        req_cpufreq_min = 4294967294, req_cpufreq = 4294967294, req_cpufreq_gov = 4294967294,
        tres_alloc = CONCAT('1=', @ncpus, ',2=', @mem, ',4=', @nn),
        tres_usage_in_ave = CONCAT('1=', @avecpu * 1000, ',2=', @averss * 1024),
        tres_usage_in_max = CONCAT('1=', @avecpu * 1000, ',2=', @maxrss * 1024),
        tres_usage_in_max_taskid = '1=0,2=0', tres_usage_in_max_nodeid = '1=0,2=0',
        tres_usage_in_min = CONCAT('1=', @avecpu * 1000, ',2=', @averss * 1024),
        tres_usage_in_min_taskid = '1=0,2=0', tres_usage_in_min_nodeid = '1=0,2=0',
        tres_usage_in_tot = CONCAT('1=', (@ucpu + @scpu) DIV 1000, ',2=', @averss * 1024 * @ntasks);
    SHOW WARNINGS LIMIT 5;" > "$SB/load-steps.log" 2>&1 || { cat "$SB/load-steps.log" >&2; die "loading the steps failed"; }
  LOAD_STEPS_S=$(since "$t0")
  log "steps loaded in $LOAD_STEPS_S s"
  [ ! -s "$SB/load-jobs.log" ] || { log "warnings loading the jobs:"; cat "$SB/load-jobs.log" >&2; }
  [ ! -s "$SB/load-steps.log" ] || { log "warnings loading the steps:"; cat "$SB/load-steps.log" >&2; }
  local nj ns na
  nj=$(sql -N -e "select count(*) from slurm_acct_db.\`$jt\`")
  ns=$(sql -N -e "select count(*) from slurm_acct_db.\`$st\`")
  na=$(sql -N -e "select count(*) from slurm_acct_db.\`$jt\` where id_assoc is null or id_assoc = 0")
  [ "$nj" = "$(($(wc -l < "$JOBS") - 1))" ] || die "job table has $nj rows, the TSV $(($(wc -l < "$JOBS") - 1))"
  [ "$ns" = "$(($(wc -l < "$STEPS") - 1))" ] || die "step table has $ns rows, the TSV $(($(wc -l < "$STEPS") - 1))"
  [ "$na" = 0 ] || die "$na jobs have no association"
}

run_slurm() {
  local n=$1 t0 out="$RES/slurm-$n.txt" reuse=0 u
  SAMPLES=$RES/slurm-$n-samples.tsv
  : > "$SAMPLES"
  if [ "${BENCH_SACCT_REUSE:-0}" = 1 ] && alive "$SB/run/slurmdbd.pid" slurmdbd && [ -s "$SB/loaded" ] \
     && [ "$(cat "$SB/loaded")" = "$(basename "$JOBS")" ]; then
    log "Slurm: reusing the running side with $(basename "$JOBS") loaded"
    SLURM_STARTED=1; reuse=1
    export SLURM_CONF=$SB/etc/slurm.conf
    source "$SB/load-times"
  else
    log "Slurm: starting MariaDB (127.0.0.1:$DB_PORT), munged and slurmdbd (127.0.0.1:$DBD_PORT) under $SB"
    t0=$(now)
    start_slurm
    UP_S=$(since "$t0")
    t0=$(now)
    register_slurm
    REG_S=$(since "$t0")
    log "Slurm: loading $n jobs ($(($(wc -l < "$STEPS") - 1)) steps) with LOAD DATA LOCAL INFILE"
    t0=$(now)
    load_slurm
    LOAD_S=$(since "$t0")
    printf 'UP_S=%s\nREG_S=%s\nLOAD_S=%s\nLOAD_JOBS_S=%s\nLOAD_STEPS_S=%s\n' "$UP_S" "$REG_S" "$LOAD_S" "$LOAD_JOBS_S" "$LOAD_STEPS_S" > "$SB/load-times"
    basename "$JOBS" > "$SB/loaded"
    log "Slurm: up in $UP_S s, registered in $REG_S s, loaded in $LOAD_S s"
  fi
  log "Slurm: checking, then measuring ($RUNS runs each)"
  measure_all slurm "$n" /usr/bin/sacct
  local dbd_rss db_rss dbd_hwm db_hwm client store all jt st
  client=$(peak_mb /usr/bin/sacct "${WEEK_ARGS[@]}")
  dbd_rss=$(rss_mb "$(cat "$SB/run/slurmdbd.pid")")
  db_rss=$(rss_mb "$(cat "$SB/mysql/mysqld.pid")")
  dbd_hwm=$(rss_mb "$(cat "$SB/run/slurmdbd.pid")" VmHWM)
  db_hwm=$(rss_mb "$(cat "$SB/mysql/mysqld.pid")" VmHWM)
  store=$(du -sm "$SB/mysql/data/slurm_acct_db" | cut -f1)
  all=$(du -sm "$SB/mysql/data" | cut -f1)
  jt=$(du -sm "$SB/mysql/data/slurm_acct_db/${CLUSTER}_job_table.ibd" | cut -f1)
  st=$(du -sm "$SB/mysql/data/slurm_acct_db/${CLUSTER}_step_table.ibd" | cut -f1)
  {
    echo "side=slurm"
    echo "version=$SLURM_VERSION + $(mariadbd --version | awk '{print $3}')"
    echo "jobs=$n"
    echo "steps=$(($(wc -l < "$STEPS") - 1))"
    echo "gen_s=$GEN_S"
    echo "start_s=$UP_S"
    echo "register_s=$REG_S"
    echo "load_s=$LOAD_S"
    echo "load_detail=jobs $LOAD_JOBS_S s + steps $LOAD_STEPS_S s (LOAD DATA LOCAL INFILE)"
    echo "store_mb=$store"
    echo "store_detail=slurm_acct_db $store MB (job table $jt MB, step table $st MB); whole datadir $all MB"
    echo "daemon_rss_mb=$dbd_rss"
    echo "db_rss_mb=$db_rss"
    echo "client_peak_mb=$client"
    echo "rss_detail=slurmdbd $dbd_rss MB (peak $dbd_hwm MB) + mariadbd $db_rss MB (peak $db_hwm MB); sacct -a over the week peaks at $client MB"
  } > "$out"
  log "Slurm: results in $out (samples $SAMPLES)"
  if [ "${BENCH_SACCT_KEEP:-0}" != 1 ]; then
    stop_slurm
    SLURM_STARTED=0
  fi
  unset SLURM_CONF
}

# ------------------------------------------------------------------ Spur
# run_spur N: a one-node Spur cluster under $B/spur (release build; `spur cluster up`, its
# slurm.conf with AccountingStorageType=accounting_storage/slurmdbd, served by the
# controller's own store); its controller is stopped, the TSV loaded into the store in its
# state directory (crates/spur-accounting/examples/load_tsv.rs, as records copied from a
# peer), the controller started again, then the same checks and measures as Slurm's with
# Spur's sacct. The store's size is its file's; "daemon RSS" the controller's, which holds
# the store (no database server beside it).
SPUR_DIR=$B/spur
stop_spur() {
  [ -x "$ROOT/target/release/spur" ] && "$ROOT/target/release/spur" cluster down --dir "$SPUR_DIR" > /dev/null 2>&1 || true
}
run_spur() {
  local n=$1 t0 out="$RES/spur-$n.txt" bin="$ROOT/target/release" pid
  SAMPLES=$RES/spur-$n-samples.tsv
  : > "$SAMPLES"
  log "Spur: building (release)"
  (cd "$ROOT" && cargo build --release -p spur-cli -p spurctld -p spurd -p spurstepd \
    && cargo build --release -p spur-accounting --example load_tsv) >&2 || die "cargo build failed"
  stop_spur
  rm -rf "$SPUR_DIR"
  mkdir -p "$SPUR_DIR"
  printf 'ClusterName=%s\nAccountingStorageType=accounting_storage/slurmdbd\n' "$CLUSTER" > "$SPUR_DIR.conf"
  t0=$(now)
  "$bin/spur" cluster up --dir "$SPUR_DIR" --nodes 1 --extra-conf "$SPUR_DIR.conf" > /dev/null || die "spur cluster up failed"
  UP_S=$(since "$t0")
  pid=$(cat "$SPUR_DIR"/run/spurctld-*.pid)
  kill "$pid"
  wait_for "the controller to stop" 30 bash -c "! kill -0 $pid"
  log "Spur: loading $n jobs into $SPUR_DIR/state/accounting.redb"
  t0=$(now)
  "$bin/examples/load_tsv" "$SPUR_DIR/state" "$JOBS" "$CLUSTER" >&2 || die "load_tsv failed"
  LOAD_S=$(since "$t0")
  "$bin/spur" cluster up --dir "$SPUR_DIR" > /dev/null || die "spur cluster up (again) failed"
  export SLURM_CONF=$SPUR_DIR/slurm.conf
  wait_for "Spur's controller" 60 "$SPUR_DIR/bin/sacct" -j 1 -n
  log "Spur: up in $UP_S s, loaded in $LOAD_S s; checking, then measuring ($RUNS runs each)"
  measure_all spur "$n" "$SPUR_DIR/bin/sacct"
  local ctld client store
  pid=$(cat "$SPUR_DIR"/run/spurctld-*.pid)
  client=$(peak_mb "$SPUR_DIR/bin/sacct" "${WEEK_ARGS[@]}")
  ctld=$(rss_mb "$pid")
  store=$(du -sm "$SPUR_DIR/state/accounting.redb" | cut -f1)
  {
    echo "side=spur"
    echo "version=spur $(git -C "$ROOT" rev-parse --short HEAD) (release), redb"
    echo "jobs=$n"
    echo "steps=$(($(wc -l < "$STEPS") - 1))"
    echo "gen_s=$GEN_S"
    echo "start_s=$UP_S"
    echo "load_s=$LOAD_S"
    echo "load_detail=load_tsv into the stopped controller's store"
    echo "store_mb=$store"
    echo "store_detail=accounting.redb $store MB"
    echo "daemon_rss_mb=$ctld"
    echo "db_rss_mb=0"
    echo "client_peak_mb=$client"
    echo "rss_detail=spurctld $ctld MB (peak $(rss_mb "$pid" VmHWM) MB), no database server; sacct -a over the week peaks at $client MB"
  } > "$out"
  log "Spur: results in $out (samples $SAMPLES)"
  stop_spur
  rm -f "$SPUR_DIR.conf"
  unset SLURM_CONF
}

# ------------------------------------------------------------------ report
report() {
  local n=$1
  python3 - "$RES" "$n" "$RUNS" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
    "$QUSER $(iso $DAY_S)..$(iso $DAY_E)" "$(iso $WEEK_S)..$(iso $WEEK_E)" <<'EOF'
import sys, os, statistics, collections
res, n, runs, ncpu, load, day, week = sys.argv[1:]
def pct(x, q):
    x = sorted(x); k = q * (len(x) - 1); f = int(k); c = min(f + 1, len(x) - 1)
    return x[f] + (x[c] - x[f]) * (k - f)
sides = {}
for side in ("spur", "slurm"):
    p = f"{res}/{side}-{n}.txt"
    if not os.path.exists(p): continue
    kv = dict(l.rstrip('\n').split('=', 1) for l in open(p) if '=' in l)
    d = collections.defaultdict(list); rows = {}
    for l in open(f"{res}/{side}-{n}-samples.tsv"):
        s, m, t0, t1, r = l.rstrip('\n').split('\t')
        d[m].append((float(t1) - float(t0)) * 1000); rows.setdefault(m, []).append(int(r))
    for m, x in d.items():
        kv[f"{m}_median_ms"] = statistics.median(x); kv[f"{m}_p90_ms"] = pct(x, 0.9)
        kv[f"{m}_rows"] = rows[m][0] if m != "jobid" else sum(rows[m][:20])
    sides[side] = kv
if not sides: sys.exit(0)
names = [s for s in ("spur", "slurm") if s in sides]
print()
print(f"sacct over {int(n):,} jobs, {runs} runs per query; {ncpu} cores, load avg {load}")
for s in names: print(f"  {s}: {sides[s].get('version', '?')}")
rows = [("user_day", f"one user, one day (-u, -X): {day}"), ("jobid", "by job id (-j ID, with steps; 20 ids)"),
        ("week_all", f"all users, one week (-a -X): {week}"), ("empty", "no such job (-j N+1): the fixed cost")]
hdr = "| measure | " + " | ".join(f"{s} median (p90)" for s in names) + (" | Spur vs Slurm |" if len(names) == 2 else " |")
print(); print(hdr); print("|" + "---|" * (hdr.count("|") - 1))
machine = []
def word(r): return f"{r:.2f}x faster" if r >= 1 else f"{1/r:.2f}x slower"
for key, label in rows:
    if not all(f"{key}_median_ms" in sides[s] for s in names): continue
    cells = [f"{sides[s][key+'_median_ms']:.1f} ({sides[s][key+'_p90_ms']:.1f}) ms, {sides[s][key+'_rows']:,} rows" for s in names]
    line = f"| {label} | " + " | ".join(cells)
    if len(names) == 2:
        r = sides["slurm"][key+"_median_ms"] / sides["spur"][key+"_median_ms"]
        line += f" | {word(r)}"
        machine.append(f"spur_{key}_median_ms={sides['spur'][key+'_median_ms']:.4g} slurm_{key}_median_ms={sides['slurm'][key+'_median_ms']:.4g} ratio={r:.3f}")
    else:
        machine.append(f"{names[0]}_{key}_median_ms={sides[names[0]][key+'_median_ms']:.4g} {names[0]}_{key}_p90_ms={sides[names[0]][key+'_p90_ms']:.4g}")
    print(line + " |")
for key, label, unit in (("load_s", "load the TSV", "s"), ("store_mb", "store on disk", "MB"),
                         ("daemon_rss_mb", "daemon RSS after the queries", "MB"), ("db_rss_mb", "database RSS after the queries", "MB"),
                         ("client_peak_mb", "sacct's peak RSS, the week query", "MB")):
    if not all(key in sides[s] for s in names): continue
    cells = [f"{sides[s][key]} {unit}" for s in names]
    line = f"| {label} | " + " | ".join(cells)
    if len(names) == 2:
        try:
            r = float(sides["slurm"][key]) / float(sides["spur"][key])
            good, bad = ("faster", "slower") if unit == "s" else ("smaller", "larger")
            line += f" | {r:.2f}x {good}" if r >= 1 else f" | {1/r:.2f}x {bad}"
        except (ValueError, ZeroDivisionError): line += " | "
    print(line + " |")
print()
for s in names:
    for k in ("load_detail", "store_detail", "rss_detail"):
        if k in sides[s]: print(f"{s} {k.split('_')[0]}: {sides[s][k]}")
    print(f"{s} phases: generate {sides[s].get('gen_s')} s, start {sides[s].get('start_s')} s, register {sides[s].get('register_s', '-')} s, load {sides[s].get('load_s')} s")
print("# ratio = how many times faster Spur is (slurm/spur)" if len(names) == 2 else "")
for l in machine: print(l)
EOF
}

# ------------------------------------------------------------------ main
ensure_quser
for n in $SIZES; do
  gen "$n"
  expect "$n"
  [ "${BENCH_SACCT_SLURM:-1}" = 0 ] || run_slurm "$n"
  [ "${BENCH_SACCT_SPUR:-1}" = 0 ] || run_spur "$n"
  report "$n" | tee "$RES/report-$n.txt"
done

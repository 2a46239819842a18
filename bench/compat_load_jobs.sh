#!/bin/bash
# slurm_load_jobs with N jobs in the queue: a C program compiled against Slurm 22.05's slurm.h,
# run with libspur_compat (libslurm.so.38, release build) against a Spur cluster, and with
# Debian's real libslurm.so.38 against a real slurmctld 22.05, in the same run.
#
#   bash bench/compat_load_jobs.sh          (BENCH_COMPAT_JOBS=10000, BENCH_COMPAT_RUNS=10)
#
# Both queues hold N held batch jobs (`sbatch -H --wrap true`, submitted by 8 parallel
# submitters). The program times slurm_load_jobs(0, &msg, SHOW_ALL) plus
# slurm_free_job_info_msg (after one untimed call that connects), and checks the record count
# (which must be N). The machine is shared and noisy, so the two sides alternate: RUNS rounds,
# each running the program once per side for 2 timed calls; the script prints the median and
# p90 of each side's samples and the ratio (slurm/spur: above 1 means Spur's library is faster).
# The Slurm side: its own munged and slurmctld 22.05 (127.0.0.1:27817, no slurmd: the jobs are
# held), SlurmUser=root, MaxJobCount=N+1000, under $B/slurm. The Spur side: `spur cluster up`
# (release build, 1 node, MaxJobCount=N+1000) under $B/spur. Both are stopped at the end.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
B="${BENCH_COMPAT_DIR:-/tmp/compat-bench}"
N="${BENCH_COMPAT_JOBS:-10000}"
RUNS="${BENCH_COMPAT_RUNS:-10}"
SB="$B/slurm"
SPUR_DIR="$B/spur"
PORT=27817
log() { echo "[compat-bench] $*" >&2; }
die() { log "$*"; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (munged runs as munge)"
for p in /usr/sbin/slurmctld /usr/sbin/munged /usr/bin/sbatch /usr/lib/x86_64-linux-gnu/libslurm.so.38; do
  [ -e "$p" ] || die "$p is missing: apt-get install slurm-wlm munge libslurm38"
done

stop_all() {
  [ -f "$SB/run/slurmctld.pid" ] && kill "$(cat "$SB/run/slurmctld.pid")" 2> /dev/null || true
  [ -f "$SB/munge/munged.pid" ] && kill "$(cat "$SB/munge/munged.pid")" 2> /dev/null || true
  [ -x "$ROOT/target/release/spur" ] && "$ROOT/target/release/spur" cluster down --dir "$SPUR_DIR" > /dev/null 2>&1 || true
}
trap stop_all EXIT
stop_all
rm -rf "$B" && mkdir -p "$B"

log "building (release): Spur and libspur_compat for 22.05"
(cd "$ROOT" && cargo build -q --release -p spur-cli -p spurctld -p spurd -p spurstepd) >&2
(cd "$ROOT" && CARGO_PROFILE=release bash scripts/compat.sh 22.05) >&2
LIB="$ROOT/target/compat-release/22.05"

cat > "$B/load_jobs.c" << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
int main(int argc, char **argv) {
    int runs = atoi(argv[1]);
    unsigned records = 0;
    slurm_init(NULL);
    for (int i = 0; i < runs + 1; i++) {
        struct timespec t0, t1;
        job_info_msg_t *m = NULL;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (slurm_load_jobs(0, &m, SHOW_ALL) != SLURM_SUCCESS) {
            fprintf(stderr, "slurm_load_jobs: %s\n", slurm_strerror(slurm_get_errno()));
            return 1;
        }
        records = m->record_count;
        slurm_free_job_info_msg(m);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (i > 0) /* the first call connects and warms up */
            printf("sample %.3f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
    }
    printf("records %u\n", records);
    slurm_fini();
    return 0;
}
EOF
cc -O2 -o "$B/load_jobs" "$B/load_jobs.c" -I/usr/include -lslurm

submit() { # sbatch-path conf n
  local sbatch=$1 conf=$2 n=$3
  local per=$(((n + 7) / 8))
  for w in $(seq 0 7); do
    (
      for i in $(seq 1 "$per"); do
        [ $((w * per + i)) -le "$n" ] || break
        SLURM_CONF=$conf "$sbatch" -H -J b$i -o /dev/null --wrap true > /dev/null
      done
    ) &
  done
  wait
}

# --- Slurm 22.05 ---
mkdir -p "$SB"/{etc,run,log,state,spool,munge}
chown munge:munge "$SB/munge" && chmod 0755 "$SB/munge"
runuser -u munge -- mungekey -c -k "$SB/munge/munge.key" -b 1024
chmod 0400 "$SB/munge/munge.key"
runuser -u munge -- munged --socket="$SB/munge/munge.socket.2" --key-file="$SB/munge/munge.key" \
  --pid-file="$SB/munge/munged.pid" --log-file="$SB/munge/munged.log" --seed-file="$SB/munge/munged.seed"
cat > "$SB/etc/slurm.conf" << EOF
ClusterName=compatbench
SlurmctldHost=$(hostname)(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$SB/munge/munge.socket.2
CredType=cred/munge
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
StateSaveLocation=$SB/state
SlurmdSpoolDir=$SB/spool/slurmd.%n
SlurmctldPidFile=$SB/run/slurmctld.pid
SlurmctldLogFile=$SB/log/slurmctld.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
MaxJobCount=$((N + 1000))
NodeName=bn01 NodeAddr=127.0.0.1 CPUs=8 RealMemory=16000 State=UNKNOWN
PartitionName=debug Nodes=bn01 Default=YES MaxTime=INFINITE State=UP
EOF
log "Slurm: starting slurmctld 22.05 (127.0.0.1:$PORT)"
SLURM_CONF="$SB/etc/slurm.conf" /usr/sbin/slurmctld -i
for _ in $(seq 1 50); do SLURM_CONF="$SB/etc/slurm.conf" scontrol ping 2> /dev/null | grep -q UP && break; sleep 0.2; done
log "Slurm: submitting $N held jobs"
t0=$(date +%s)
submit /usr/bin/sbatch "$SB/etc/slurm.conf" "$N"
log "Slurm: submitted in $(($(date +%s) - t0)) s"

# --- Spur ---
echo "MaxJobCount=$((N + 1000))" > "$B/spur.conf"
"$ROOT/target/release/spur" cluster up --dir "$SPUR_DIR" --nodes 1 --extra-conf "$B/spur.conf" > /dev/null
log "Spur: submitting $N held jobs"
t0=$(date +%s)
submit "$SPUR_DIR/bin/sbatch" "$SPUR_DIR/slurm.conf" "$N"
log "Spur: submitted in $(($(date +%s) - t0)) s"
log "measuring: $RUNS rounds, the sides alternating"
: > "$B/slurm.samples"
: > "$B/spur.samples"
for r in $(seq 1 "$RUNS"); do
  SLURM_CONF="$SB/etc/slurm.conf" "$B/load_jobs" 2 >> "$B/slurm.samples"
  SLURM_CONF="$SPUR_DIR/slurm.conf" LD_LIBRARY_PATH="$LIB" "$B/load_jobs" 2 >> "$B/spur.samples"
done
python3 - "$B" "$N" << 'EOF'
import sys
b, n = sys.argv[1], int(sys.argv[2])
res = {}
for side in ("slurm", "spur"):
    lines = open("%s/%s.samples" % (b, side)).read().split("\n")
    recs = [int(l.split()[1]) for l in lines if l.startswith("records")]
    if not recs or min(recs) < n:
        sys.exit("%s: %s records, not %d" % (side, recs and min(recs), n))
    s = sorted(float(l.split()[1]) for l in lines if l.startswith("sample"))
    res[side] = (s[len(s) // 2], s[(len(s) * 9) // 10], len(s))
print("\nslurm_load_jobs + slurm_free_job_info_msg, %d jobs, %d samples per side (ms)" % (n, res["spur"][2]))
print("%-8s %10s %10s" % ("side", "median", "p90"))
for side in ("slurm", "spur"):
    print("%-8s %10.2f %10.2f" % (side, res[side][0], res[side][1]))
print("ratio slurm/spur (median): %.2f" % (res["slurm"][0] / res["spur"][0]))
EOF

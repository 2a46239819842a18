#!/bin/bash
# Controller failover under load, and the cost of replication, on this machine.
#
#   bash bench/failover.sh          (or `make bench-failover`)
#
# 1. Failover: a 3-controller Spur cluster (`spur cluster up --controllers 3`) with
#    background submitters running the whole time. BENCH_KILLS times: kill -9 the
#    leader, then submit with `sbatch` until one is acknowledged. Failover time = the
#    kill -> that first acknowledged submit (so it includes the election, the client
#    finding the new leader, and one sbatch). The killed controller is restarted and
#    catches up before the next kill. At the end every acknowledged job must exist
#    exactly once: lost_jobs = acknowledged ids squeue does not know, duplicate_jobs =
#    submissions (each has its own job name) that made more than one job.
# 2. Throughput: BENCH_JOBS held jobs from BENCH_PAR parallel submitters, committed
#    submits per second, with 1 and with 3 controllers.
#
# Prints a table, then as its last line:
#   failover_median_ms=<n> failover_p99_ms=<n> lost_jobs=<n> duplicate_jobs=<n>
#
# Environment: BENCH_KILLS=20 BENCH_JOBS=400 BENCH_PAR=4 BENCH_LOAD=2 (background
# submitters during the kills), BENCH_PROFILE=debug|release (release builds it),
# BENCH_NO_BUILD=1, BENCH_DIR (default /tmp/spur-bench-failover).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KILLS=${BENCH_KILLS:-20}
N=${BENCH_JOBS:-400}
PAR=${BENCH_PAR:-4}
LOAD=${BENCH_LOAD:-2}
PROFILE=${BENCH_PROFILE:-debug}
DIR=${BENCH_DIR:-/tmp/spur-bench-failover}

log() { echo "[failover $(date +%T)] $*" >&2; }
die() { echo "[failover] ERROR: $*" >&2; exit 1; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

if [ -z "${BENCH_NO_BUILD:-}" ]; then
    if [ "$PROFILE" = release ]; then
        (cd "$ROOT" && cargo build --release --workspace --bins) || die "build failed"
    else
        (cd "$ROOT" && cargo build --workspace --bins) || die "build failed"
    fi
fi
SPUR="$ROOT/target/$PROFILE/spur"
[ -x "$SPUR" ] || die "no $SPUR"

cleanup() {
    for d in "$DIR"/c1 "$DIR"/c3 "$DIR"/ha; do
        [ -d "$d" ] && "$SPUR" cluster down --dir "$d" >/dev/null 2>&1
    done
    jobs -p | xargs -r kill 2>/dev/null
}
trap cleanup EXIT
rm -rf "$DIR"
mkdir -p "$DIR"

up() { # dir controllers
    "$SPUR" cluster up --dir "$1" --nodes 2 --controllers "$2" > "$1.env" || die "cluster up $1"
}

use() { # dir
    export SLURM_CONF="$1/slurm.conf"
    export PATH="$1/bin:/usr/local/bin:/usr/bin:/bin"
}

leader_name() {
    scontrol ping | sed -n 's/^Slurmctld(primary) at \(.*\) is UP$/\1/p' | head -1
}

wait_all_up() { # n
    local t0; t0=$(now_ms)
    while [ "$(scontrol ping | grep -c ' is UP$')" -lt "$1" ] || [ -z "$(leader_name)" ]; do
        [ $(( $(now_ms) - t0 )) -gt 60000 ] && die "controllers not all up after 60 s: $(scontrol ping)"
        sleep 0.1
    done
}

# ---------------------------------------------------------------- 1. failover
log "failover: 3 controllers, $KILLS kills of the leader, $LOAD background submitters"
mkdir -p "$DIR/ha"
up "$DIR/ha" 3
use "$DIR/ha"
wait_all_up 3
STOP="$DIR/stop"
rm -f "$STOP"
for s in $(seq "$LOAD"); do
    (
        i=0
        while [ ! -e "$STOP" ]; do
            i=$((i + 1))
            id=$(sbatch --parsable --hold -J "bg$s-$i" -o /dev/null --wrap true 2>>"$DIR/bg$s.err") && echo "$id bg$s-$i" >> "$DIR/acked.txt"
        done
    ) &
done
: > "$DIR/failover_ms.txt"
for k in $(seq "$KILLS"); do
    L=$(leader_name)
    [ -n "$L" ] || die "no leader before kill $k"
    pid=$(cat "$DIR/ha/run/spurctld-$L.pid")
    t0=$(now_ms)
    kill -9 "$pid"
    j=0
    while :; do
        j=$((j + 1))
        if id=$(sbatch --parsable --hold -J "fo$k-$j" -o /dev/null --wrap true 2>>"$DIR/fo.err"); then
            t1=$(now_ms)
            echo "$id fo$k-$j" >> "$DIR/acked.txt"
            break
        fi
        [ $(( $(now_ms) - t0 )) -gt 60000 ] && die "no submit accepted 60 s after killing $L"
    done
    echo $((t1 - t0)) >> "$DIR/failover_ms.txt"
    log "kill $k: leader $L -> $(leader_name), first acknowledged submit after $((t1 - t0)) ms"
    # bring the killed controller back and let it catch up before the next kill
    "$SPUR" cluster up --dir "$DIR/ha" > /dev/null || die "restart $L"
    wait_all_up 3
    sleep 0.5
done
touch "$STOP"
wait
squeue -h -t all -o '%i %j' > "$DIR/squeue.txt" || die "squeue after the kills"
read -r LOST DUP ACKED <<< "$(python3 - "$DIR/acked.txt" "$DIR/squeue.txt" <<'EOF'
import sys, collections
acked = [l.split() for l in open(sys.argv[1]) if l.strip()]
jobs = [l.split() for l in open(sys.argv[2]) if l.strip()]
ids = collections.Counter(j[0] for j in jobs)
names = collections.Counter(j[1] for j in jobs)
lost = sum(1 for a in acked if ids[a[0]] == 0)
dup = sum(n - 1 for n in names.values() if n > 1) + sum(n - 1 for n in ids.values() if n > 1)
print(lost, dup, len(acked))
EOF
)"
"$SPUR" cluster down --dir "$DIR/ha" >/dev/null

# ---------------------------------------------------------------- 2. throughput
rate() { # dir controllers -> jobs/s
    mkdir -p "$1"
    up "$1" "$2"
    use "$1"
    wait_all_up "$2"
    local per=$(( N / PAR )) t0 t1
    t0=$(now_ms)
    for p in $(seq "$PAR"); do
        ( for i in $(seq "$per"); do sbatch --hold -o /dev/null --wrap true > /dev/null || echo fail >> "$1.fail"; done ) &
    done
    wait
    t1=$(now_ms)
    [ -e "$1.fail" ] && die "submissions failed with $2 controllers"
    local got; got=$(squeue -h -o %i | wc -l)
    [ "$got" -eq $((per * PAR)) ] || die "$got jobs of $((per * PAR)) with $2 controllers"
    "$SPUR" cluster down --dir "$1" >/dev/null
    python3 -c "print(f'{$((per * PAR)) / (($t1 - $t0) / 1000):.1f}')"
}
log "throughput: $N held jobs from $PAR submitters, 1 controller then 3"
R1=$(rate "$DIR/c1" 1)
R3=$(rate "$DIR/c3" 3)

python3 - "$DIR/failover_ms.txt" "$R1" "$R3" "$LOST" "$DUP" "$ACKED" "$PROFILE" <<'EOF'
import sys, statistics
ms = sorted(int(l) for l in open(sys.argv[1]) if l.strip())
r1, r3, lost, dup, acked, prof = sys.argv[2:8]
def pct(p):
    # nearest-rank percentile
    k = max(0, min(len(ms) - 1, -(-p * len(ms) // 100) - 1))
    return ms[k]
print(f"Spur failover benchmark ({prof} build, {len(ms)} leader kills, {acked} acknowledged submissions)")
print(f"  failover (kill -9 leader -> first acknowledged sbatch): median {statistics.median(ms):.0f} ms, p99 {pct(99)} ms, min {ms[0]} ms, max {ms[-1]} ms")
print(f"  committed submits/s, 1 controller:  {r1}")
print(f"  committed submits/s, 3 controllers: {r3}")
print(f"  lost jobs {lost}, duplicate jobs {dup}")
print(f"failover_median_ms={statistics.median(ms):.0f} failover_p99_ms={pct(99)} lost_jobs={lost} duplicate_jobs={dup}")
EOF

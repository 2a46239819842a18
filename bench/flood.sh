#!/bin/bash
# A flood from one user, and what another user sees (issue 9, "Floods").
#
#   bash bench/flood.sh          (or `make bench-flood`)
#
# A 3-controller cluster of 2 nodes (MaxJobCount raised so the flood is never
# refused for its size). User spurflood runs slurm-tests/examples/flood.rs:
# BENCH_CONC tasks submitting held jobs and querying every job, node and
# partition through the client library, as fast as loopback allows, for
# BENCH_SECS seconds. Meanwhile user spurother runs `squeue -u spurother` and
# `sbatch --hold --wrap true` in turn, and the time of each command is
# recorded; the same loop runs for BENCH_IDLE seconds before the flood, for
# the idle latency, and again for BENCH_IDLE seconds after it (idle, but with
# the flood's jobs in the queue, which every squeue reads). Prints per
# command the percentiles idle, under the flood and after, the ratios, the other user's failed commands, the flood's
# counts, and the leader's id and Raft term before and after (a leader that
# lost its term under load would show a new one). Last line:
#   squeue_p50_ratio=<x> ... (flood/idle) squeue_p50_vs_after=<x> ... (flood/after) other_errors=<n> term_changed=<0|1>
#
# BENCH_RL=1 turns on Slurm's rate limiting (SlurmctldParameters=rl_enable, its
# default bucket), as a site facing such users would.
#
# Environment: BENCH_SECS=60 BENCH_IDLE=15 BENCH_CONC=32 BENCH_PROFILE=debug|release, BENCH_RL=1,
# BENCH_NO_BUILD=1, BENCH_DIR (default /tmp/spur-bench-flood).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECS=${BENCH_SECS:-60}
IDLE=${BENCH_IDLE:-15}
CONC=${BENCH_CONC:-32}
PROFILE=${BENCH_PROFILE:-debug}
DIR=${BENCH_DIR:-/tmp/spur-bench-flood}
FLOODER=spurflood
OTHER=spurother

log() { echo "[flood $(date +%T)] $*" >&2; }
die() { echo "[flood] ERROR: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it creates the two users and runs commands as them)"
if [ -z "${BENCH_NO_BUILD:-}" ]; then
    rel=(); [ "$PROFILE" = release ] && rel=(--release)
    (cd "$ROOT" && cargo build "${rel[@]}" --workspace --bins && cargo build "${rel[@]}" -p slurm-tests --example flood) \
        || die "build failed"
fi
BIN="$ROOT/target/$PROFILE"
SPUR="$BIN/spur"
FLOOD="$BIN/examples/flood"
[ -x "$SPUR" ] && [ -x "$FLOOD" ] || die "no $SPUR or $FLOOD"
for u in $FLOODER $OTHER; do
    id "$u" >/dev/null 2>&1 || useradd -M -N -s /bin/sh "$u" || die "useradd $u"
done

cleanup() {
    [ -d "$DIR/c" ] && "$SPUR" cluster down --dir "$DIR/c" >/dev/null 2>&1
    jobs -p | xargs -r kill 2>/dev/null
}
trap cleanup EXIT
rm -rf "$DIR"
mkdir -p "$DIR"
chmod 755 "$DIR"
echo "MaxJobCount=1000000" > "$DIR/extra.conf"
[ -n "${BENCH_RL:-}" ] && echo "SlurmctldParameters=rl_enable" >> "$DIR/extra.conf"
"$SPUR" cluster up --dir "$DIR/c" --nodes 2 --controllers 3 --extra-conf "$DIR/extra.conf" > "$DIR/env" \
    || die "cluster up"
chmod -R a+rX "$DIR/c" 2>/dev/null
CONF="$DIR/c/slurm.conf"
export SLURM_CONF="$CONF" PATH="$BIN:$PATH"

# the other user's loop: "<command> <ms> <rc>" lines into $1 until $2 seconds pass
other_loop() {
    local out=$1 secs=$2 end=$(( $(date +%s) + $2 ))
    while [ "$(date +%s)" -lt "$end" ]; do
        for cmd in squeue sbatch; do
            local t0=$(date +%s%N) rc
            if [ $cmd = squeue ]; then
                runuser -u $OTHER -- env SLURM_CONF="$CONF" "$DIR/c/bin/squeue" -u $OTHER >/dev/null 2>>"$DIR/other.err"; rc=$?
            else
                (cd /tmp && runuser -u $OTHER -- env SLURM_CONF="$CONF" "$DIR/c/bin/sbatch" --hold -o /dev/null \
                    --wrap true >/dev/null 2>>"$DIR/other.err"); rc=$?
            fi
            echo "$cmd $(( ($(date +%s%N) - t0) / 1000000 )) $rc" >> "$out"
        done
    done
}

term() { "$FLOOD" "$CONF" --term 2>/dev/null || echo "leader=? term=?"; }

log "idle: ${IDLE}s of the other user's commands"
other_loop "$DIR/idle.txt" "$IDLE"
before=$(term)
log "flood: ${SECS}s, $CONC tasks as $FLOODER; the other user's commands meanwhile"
runuser -u $FLOODER -- "$FLOOD" "$CONF" "$SECS" "$CONC" > "$DIR/flood.out" 2>"$DIR/flood.err" &
fpid=$!
other_loop "$DIR/flood.txt" "$SECS"
wait $fpid
after=$(term)
log "after: ${IDLE}s of the other user's commands, idle again but with the flood's jobs in the queue"
other_loop "$DIR/after.txt" "$IDLE"

python3 - "$DIR" "$before" "$after" "$(cat "$DIR/flood.out")" <<'PY'
import sys
d, before, after, flood = sys.argv[1:5]
def load(f):
    r = {}
    for l in open(f"{d}/{f}"):
        c, ms, rc = l.split()
        r.setdefault(c, []).append((int(ms), int(rc)))
    return r
idle, fl, aft = load("idle.txt"), load("flood.txt"), load("after.txt")
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]
print(f"{'command':8} {'phase':6} {'n':>5} {'p50_ms':>7} {'p90_ms':>7} {'p99_ms':>7} {'max_ms':>7} {'failed':>6}")
ratios, errors = {}, 0
for c in ("squeue", "sbatch"):
    for name, data in (("idle", idle), ("flood", fl), ("after", aft)):
        v = [m for m, _ in data.get(c, [])]
        bad = sum(1 for _, rc in data.get(c, []) if rc != 0)
        if name == "flood":
            errors += bad
        print(f"{c:8} {name:6} {len(v):5} {pct(v,50):7} {pct(v,90):7} {pct(v,99):7} {max(v):7} {bad:6}")
    i = [m for m, _ in idle[c]]; f = [m for m, _ in fl[c]]; a = [m for m, _ in aft[c]]
    ratios[c] = (pct(f, 50) / max(1, pct(i, 50)), pct(f, 99) / max(1, pct(i, 99)),
                 pct(f, 50) / max(1, pct(a, 50)), pct(f, 99) / max(1, pct(a, 99)))
print(f"flood: {flood}")
print(f"leader before: {before}; after: {after}")
changed = 0 if before == after and "?" not in before else 1
print("flood/idle and flood/after ratios (after: the same queue, no flood)")
print(f"squeue_p50_ratio={ratios['squeue'][0]:.2f} squeue_p99_ratio={ratios['squeue'][1]:.2f} "
      f"sbatch_p50_ratio={ratios['sbatch'][0]:.2f} sbatch_p99_ratio={ratios['sbatch'][1]:.2f} "
      f"squeue_p50_vs_after={ratios['squeue'][2]:.2f} squeue_p99_vs_after={ratios['squeue'][3]:.2f} "
      f"sbatch_p50_vs_after={ratios['sbatch'][2]:.2f} sbatch_p99_vs_after={ratios['sbatch'][3]:.2f} "
      f"other_errors={errors} term_changed={changed}")
PY

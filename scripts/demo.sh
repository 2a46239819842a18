#!/bin/bash
# The Spur demo: a 4-node cluster with three Raft controllers on this machine,
# driven with Slurm's commands; the leader controller is killed mid-run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIR=${SPUR_DEMO_DIR:-$(mktemp -d /tmp/spur-demo.XXXXXX)}
trap '"$ROOT/target/debug/spur" cluster down --dir "$DIR"' EXIT

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@"; }

# accounting as a site with slurmdbd has it: served by the controllers' own store
mkdir -p "$DIR"
echo "AccountingStorageType=accounting_storage/slurmdbd" > "$DIR/accounting.conf"
say "spur cluster up --dir $DIR --nodes 4 --controllers 3 --extra-conf $DIR/accounting.conf"
eval "$("$ROOT/target/debug/spur" cluster up --dir "$DIR" --nodes 4 --controllers 3 --extra-conf "$DIR/accounting.conf")"
echo "SLURM_CONF=$SLURM_CONF"

WORK=$DIR/work; mkdir -p "$WORK"; cd "$WORK"
cat > hello.sh <<'SCRIPT'
#!/bin/bash
#SBATCH --job-name=hello
#SBATCH --output=hello-%j.out
#SBATCH --nodes=2
echo "hello from $SLURMD_NODENAME, job $SLURM_JOB_ID on $SLURM_JOB_NODELIST ($SLURM_NNODES nodes)"
sleep 4
SCRIPT

say "sbatch hello.sh"; J1=$(sbatch --parsable hello.sh); echo "$J1"
run sbatch --array=1-4 --output='array-%A_%a.out' --wrap='echo "task $SLURM_ARRAY_TASK_ID of array job $SLURM_ARRAY_JOB_ID (of $SLURM_ARRAY_TASK_COUNT tasks)"; sleep 3'
say "sbatch --dependency=afterok:$J1 --wrap='echo after $J1'"
J3=$(sbatch --parsable --dependency=afterok:$J1 -J after --output=after-%j.out --wrap="echo 'ran after job $J1'")
echo "Submitted batch job $J3"
sleep 1
run squeue
run sinfo
run scontrol ping
LEADER=$(scontrol ping | sed -n 's/^Slurmctld(primary) at \(.*\) is UP$/\1/p')
say "kill -9 the leader controller ($LEADER) while the jobs run"
kill -9 "$(cat "$DIR/run/spurctld-$LEADER.pid")"
T0=$(date +%s%N)
J4=$(sbatch --parsable -J after-kill --output=after-kill-%j.out --wrap='echo "submitted after the leader was killed"')
echo "Submitted batch job $J4 ($(( ($(date +%s%N) - T0) / 1000000 )) ms after the kill)"
run scontrol ping
run squeue
say "waiting for the queue to drain"
for _ in $(seq 1 120); do
  [ -z "$(squeue -h)" ] && break
  sleep 0.5
done
run squeue
run scontrol show job "$J3"
say "sacct   (the jobs' records, from the controllers' replicated accounting store, across the failover)"
sacct
run sacct -X -P --format=JobID,JobName,State,ExitCode,Elapsed,NodeList
say "spur cluster up --dir $DIR   (restarts the killed controller; it catches up as a follower)"
"$ROOT/target/debug/spur" cluster up --dir "$DIR" > /dev/null
sleep 1
run scontrol ping
say "the output files"
for f in "$WORK"/*.out; do echo "--- $(basename "$f")"; cat "$f"; done
run sinfo
say "spur cluster down --dir $DIR"

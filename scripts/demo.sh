#!/bin/bash
# The Spur demo: a 4-node cluster on this machine, driven with Slurm's commands.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIR=${SPUR_DEMO_DIR:-$(mktemp -d /tmp/spur-demo.XXXXXX)}
trap '"$ROOT/target/debug/spur" cluster down --dir "$DIR"' EXIT

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@"; }

say "spur cluster up --dir $DIR --nodes 4"
eval "$("$ROOT/target/debug/spur" cluster up --dir "$DIR" --nodes 4)"
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
run sbatch --array=1-4 --output='array-%A_%a.out' --wrap='echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID"; sleep 3'
say "sbatch --dependency=afterok:$J1 --wrap='echo after $J1'"
J3=$(sbatch --parsable --dependency=afterok:$J1 -J after --output=after-%j.out --wrap="echo 'ran after job $J1'")
echo "Submitted batch job $J3"
sleep 1
run squeue
run sinfo
say "waiting for the queue to drain"
for _ in $(seq 1 120); do
  [ -z "$(squeue -h)" ] && break
  sleep 0.5
done
run squeue
run scontrol show job "$J3"
say "the output files"
for f in "$WORK"/*.out; do echo "--- $(basename "$f")"; cat "$f"; done
run sinfo
say "spur cluster down --dir $DIR"

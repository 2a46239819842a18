run
cat > args.sh <<'EOS'
#!/bin/bash
#SBATCH -o args-%j.out
echo "count=$#"
for a in "$@"; do echo "[$a]"; done
echo "name=$SLURM_JOB_NAME"
EOS

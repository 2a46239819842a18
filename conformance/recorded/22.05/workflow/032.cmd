run
cat > nf.sh <<'EOS'
#!/bin/bash
#SBATCH -J nf-task_1
#SBATCH -o nf.log
#SBATCH --no-requeue
#SBATCH --signal B:USR2@30
echo nf-task
EOS

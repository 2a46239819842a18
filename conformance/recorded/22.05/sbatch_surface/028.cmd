run
cat > pbs3.sh <<'EOS'
#!/bin/bash
#SBATCH --ignore-pbs
#SBATCH --hold
#PBS -N ignored
echo pbs3
EOS

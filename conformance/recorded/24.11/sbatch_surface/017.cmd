run
cat > pbs2.sh <<'EOS'
#!/bin/bash
#SBATCH -J fromsbatch
#SBATCH -t 20
#SBATCH --hold
#PBS -N frompbs
#PBS -l walltime=30:00
echo pbs2
EOS

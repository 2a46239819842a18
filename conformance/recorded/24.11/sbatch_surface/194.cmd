run
cat > bsub1.sh <<'EOS'
#!/bin/bash
#SBATCH --hold
#BSUB -J lsfname -n 1,2 -W 30 -M 1000
#PBS -N ignored
echo bsub
EOS

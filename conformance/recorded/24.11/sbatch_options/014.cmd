run capture=A3
sbatch --parsable --hold -J over -s --requeue -p debug --threads-per-core=1 --wrap true

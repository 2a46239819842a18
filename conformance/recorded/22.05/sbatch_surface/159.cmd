run
sbatch --hold --gres-flags=enforce-binding --wrap true

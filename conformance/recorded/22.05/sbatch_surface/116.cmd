run capture=O7
sbatch --parsable --hold -m cyclic:block --hint=compute_bound --mem-bind=local --wrap true

run
srun -n2 -l -o labelled.txt printenv SLURM_PROCID

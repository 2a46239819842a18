run
srun --mem=300 sh -c 'echo $SLURM_MEM_PER_NODE; squeue -h -j $SLURM_JOB_ID -o "%m"'

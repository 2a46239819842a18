run
srun -n2 -N2 -o 'out-%t-%n-%N-%j-%J-%s.txt' -e 'err-%t-%j.txt' sh -c 'echo out $SLURM_PROCID; echo err $SLURM_PROCID >&2'

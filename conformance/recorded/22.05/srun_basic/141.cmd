run as=spurtest
srun sh -c 'id -un; echo $SLURM_JOB_USER $SLURM_JOB_UID $SLURM_JOB_GID $HOME'

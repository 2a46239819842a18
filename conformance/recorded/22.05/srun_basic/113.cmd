run
srun --chdir=/tmp pwd

run
umask 027; srun -n1 sh -c 'umask; printenv SLURM_UMASK'

run
SLURM_JOB_NODELIST='node[2-4]' scontrol show hostnames

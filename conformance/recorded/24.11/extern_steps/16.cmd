run
printf 'squeue -s -h -o "%%i %%j %%N %%A"\necho step=$SLURM_STEP_ID job=$SLURM_JOB_ID nodes=$SLURM_JOB_NUM_NODES\n' | SHELL=/bin/bash salloc -N2 2> >(sed '/^salloc: Job allocation [0-9]* has been revoked\.$/d' >&2)

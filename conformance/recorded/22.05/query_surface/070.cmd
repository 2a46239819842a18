run
SQUEUE_NAMES=alpha squeue -h -o '%i %j' -n gamma

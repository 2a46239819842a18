run
SQUEUE_SORT=-i squeue -h -o '%i' -S i

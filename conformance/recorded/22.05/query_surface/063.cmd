run
SQUEUE_FORMAT2='JobID:6,Name:8,State' squeue

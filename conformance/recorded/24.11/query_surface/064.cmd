run
SQUEUE_FORMAT='%i' SQUEUE_FORMAT2='Name' squeue

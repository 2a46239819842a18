run
squeue -n arr -r

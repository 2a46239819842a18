run
squeue --iterate=-1

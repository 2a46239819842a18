run
squeue --jobs=$J2

run
squeue --steps=$J1

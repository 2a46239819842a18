run
squeue --noheader --format='%i %t' --job $W1

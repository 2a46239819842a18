run
squeue --noheader --format='%i %t' --job $N1,$N2,$N3,$N4,$N5

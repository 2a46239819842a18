run
squeue -t all --sort=i -o '%.5i|%-10j|%10u|%.3t|%5P|%.20R|'

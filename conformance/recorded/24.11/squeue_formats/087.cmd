run
squeue --sort=i -o '%A %i %F %K %T' -r -t all

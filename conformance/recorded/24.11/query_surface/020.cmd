run as=spurtest
squeue --me --notme -h -o '%i'

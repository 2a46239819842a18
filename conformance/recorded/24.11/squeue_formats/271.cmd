run as=spurtest
squeue --me -t all

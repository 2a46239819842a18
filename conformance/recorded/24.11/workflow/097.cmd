run
squeue -h -r -t all -j $R1 --sort=i -o '%i,%T'

run
squeue -h -t all -j ${R1}_1 -o '%i,%T'

run
squeue -h -t all -j ${R1}_7 -o '%i,%T'

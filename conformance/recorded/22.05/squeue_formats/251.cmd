run
squeue -j ${J7}_2 -r

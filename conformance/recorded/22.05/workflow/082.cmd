run capture=F4
sbatch --parsable -J onok-kill --kill-on-invalid-dep=yes --dependency=afterok:$F1 --wrap 'echo never'

run capture=N4
sbatch --parsable -J wf_c --wrap 'sleep 300'

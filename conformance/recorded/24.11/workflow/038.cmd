run capture=N1
sbatch --parsable -J wf_b --wrap 'sleep 300'

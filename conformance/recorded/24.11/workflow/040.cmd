run capture=N2
sbatch --parsable -J wf_b --wrap 'sleep 300'

run capture=N5
sbatch --parsable -J wf_c --hold --wrap 'sleep 300'

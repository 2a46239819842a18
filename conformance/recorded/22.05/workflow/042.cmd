run capture=N3
sbatch --parsable -J wf_b --hold --wrap 'sleep 300'

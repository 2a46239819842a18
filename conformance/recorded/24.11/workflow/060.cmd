run
squeue -h -t all -n wf_c --sort=i -o '%i %T'

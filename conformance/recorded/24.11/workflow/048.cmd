run
squeue -h --name=wf_b --sort=i -o '%i %T'

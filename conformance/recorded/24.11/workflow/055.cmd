run
squeue -h -t all --name=wf_b --sort=i -o '%i %T %r'

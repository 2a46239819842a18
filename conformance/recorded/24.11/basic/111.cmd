run
squeue -t CD,CA,F -h -o '%i %T'

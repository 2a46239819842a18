run
squeue -h -j $S3 -o '%i %T %r'

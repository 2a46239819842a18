run
squeue -h -j $V3 -o '%i %m %h'

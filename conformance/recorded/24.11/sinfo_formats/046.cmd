run
sinfo -N -o '%N %h'

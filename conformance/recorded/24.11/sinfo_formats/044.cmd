run
sinfo -N -o '%N %N'

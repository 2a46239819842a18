run as=spurtest
sbatch --reservation=r1 --wrap 'sleep 1'

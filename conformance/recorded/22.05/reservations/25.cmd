run
sbatch --reservation=nosuch --wrap 'sleep 1'

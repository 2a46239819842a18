run
sbatch --hold --bb='capacity=1G' --wrap true

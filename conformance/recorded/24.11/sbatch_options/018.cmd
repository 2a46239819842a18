run
sbatch --qos=nosuch --wrap true

run
sbatch --hold --container=/nonexistent --container-id=abc --wrap true

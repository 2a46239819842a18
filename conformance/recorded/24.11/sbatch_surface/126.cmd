run
sbatch --hold --delay-boot=abc --wrap true

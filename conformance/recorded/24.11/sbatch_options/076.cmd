run capture=G2
sbatch --parsable -J pre args.sh -J notanoption

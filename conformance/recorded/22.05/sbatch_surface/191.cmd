run
sbatch verb.sh --help

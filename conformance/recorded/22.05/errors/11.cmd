run
sbatch --bogus-option --wrap true

run
sbatch -V --bogus

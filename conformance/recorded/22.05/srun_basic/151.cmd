run
srun --bogus

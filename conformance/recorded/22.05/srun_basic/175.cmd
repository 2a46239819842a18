run
srun --distribution=bogus true

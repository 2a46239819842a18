run
srun printf 'a\nb\n'

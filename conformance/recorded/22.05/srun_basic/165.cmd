run
timeout 10 srun --mem=3000 true

run
srun --label -n2 echo x | sort

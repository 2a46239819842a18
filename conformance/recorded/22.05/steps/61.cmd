run capture=K
sbatch --parsable -o kill-%j.out --wrap 'srun sh -c "touch k.started; exec sleep 300"'

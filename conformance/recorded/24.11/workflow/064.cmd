run
sbatch -W -o w9-%j.out --wrap 'kill -9 $$'

run
sbatch --wait --parsable -o wok-%j.out --wrap 'echo fine'

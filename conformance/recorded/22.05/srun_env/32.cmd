run capture=B3
sbatch --parsable -n2 -c2 -o batch3-%j.out --wrap 'srun -l env | sort > b9-c2.txt'

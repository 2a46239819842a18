run capture=B2
sbatch --parsable -N2 -n3 -o batch2-%j.out --wrap 'srun -l env | sort > b8-N2n3.txt'

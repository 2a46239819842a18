run capture=J5
sbatch --parsable -J eps -o eps.out --wrap true

run capture=A2
sbatch --parsable --hold -J excl --exclusive -w node3 --mem=700 --ntasks-per-node=2 -N1 --wrap true

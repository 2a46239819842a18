run capture=J2 as=spurtest
sbatch --parsable -J beta -N2 -n2 --mem-per-cpu=300 --wrap 'sleep 300'

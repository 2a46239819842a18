run capture=S1
sbatch --parsable -J one -t 20 -o one-%j.out --wrap 'sleep 300'

run capture=J3
sbatch --parsable -J gamma --hold -t 5 --nice=10 --wrap 'sleep 300'

run capture=J1
sbatch --parsable -J alpha -t 10 --comment=first -o alpha.out --wrap 'sleep 300'

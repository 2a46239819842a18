run capture=C1
sbatch --parsable -J step1 -o chain-%j.out --wrap 'sleep 3; echo step1'

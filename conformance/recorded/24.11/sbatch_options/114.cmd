run capture=C6
sbatch --parsable -o 'pat-%A-%a-%J-%s-%t-%n-%x.out' -J pj --wrap true

run capture=J5
sbatch --parsable -J pat -o 'out-%j-%x-%u-%N-%%.txt' -e 'err-%j-%x-%u-%N.txt' --wrap 'echo to-stdout; echo to-stderr >&2'

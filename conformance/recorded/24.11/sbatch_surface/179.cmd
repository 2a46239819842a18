run capture=O18
sbatch --parsable -o ef-%j.out --export-file=env.txt --wrap 'echo "FOO=$FOO"'

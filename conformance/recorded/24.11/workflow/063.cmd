run
sbatch --parsable --wait -o w7-%j.out --wrap 'exit 7'

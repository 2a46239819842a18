run
sbatch --wait -o w0-%j.out --wrap 'exit 0'

run
sbatch -o plain-%j.out --wrap 'echo plain'

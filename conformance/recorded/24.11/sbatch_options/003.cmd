run
sbatch -Q -o quiet-%j.out --wrap 'echo quiet'

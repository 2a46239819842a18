run capture=X4
sbatch --parsable -o /nonexistent/dir/out-%j.txt --wrap 'echo hi'

run capture=S3
sbatch --parsable -J three -o three-%j.out --wrap 'echo done'

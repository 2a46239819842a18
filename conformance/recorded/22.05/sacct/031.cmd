run capture=S as=spurtest
sbatch --parsable -J user_job --wrap 'echo mine'

run capture=F
sbatch --parsable -J fail_job --wrap 'exit 3'

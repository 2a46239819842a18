run capture=D
sbatch --parsable -J dep_job --dependency=afterok:$R --wrap true

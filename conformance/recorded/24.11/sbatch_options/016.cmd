run capture=A4
sbatch --parsable --hold -J acct --account=someacct --wckey=wk --wrap true

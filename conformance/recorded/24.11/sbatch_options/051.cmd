run capture=D5
sbatch --parsable <<'EOS'
#!/bin/bash
#SBATCH --job-name=stdin-job --nice=4
#SBATCH -t 3 # a trailing comment
#SBATCH --hold
true
EOS

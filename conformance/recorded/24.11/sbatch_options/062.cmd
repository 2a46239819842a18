run capture=V2
SBATCH_OUTPUT=envout-%j.out SBATCH_ERROR=enverr-%j.err sbatch --parsable --wrap 'echo out; echo err >&2'

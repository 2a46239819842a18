run capture=T1
sbatch --parsable --time=0:05 -o timeout-%j.out --wrap 'echo start; sleep 600'

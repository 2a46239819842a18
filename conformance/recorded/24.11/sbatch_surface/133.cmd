run capture=O10
sbatch --parsable --hold --reboot --spread-job --use-min-nodes --wait-all-nodes=1 --wrap true

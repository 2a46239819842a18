run capture=W1
sbatch --parsable --job-name=wf_a --output=wf_a-%j.out --export=ALL --comment=rule_a -t 5 --mem=100 --cpus-per-task=1 --wrap 'echo a; sleep 4'

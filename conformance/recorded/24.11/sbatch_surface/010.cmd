run
sbatch -v verb.sh one two

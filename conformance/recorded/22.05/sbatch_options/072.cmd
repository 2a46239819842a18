run capture=G1
sbatch --parsable args.sh one 'two words' '' --three

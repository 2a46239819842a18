run capture=C4
sbatch --parsable -J join -o chain-%j.out --dependency=afterany:$C1:$C2:$C3 --wrap 'echo join'

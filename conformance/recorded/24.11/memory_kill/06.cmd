run capture=J
sbatch --parsable --mem=50 -o mem-%j.out --wrap 'echo start; perl -e "\$x = 1 x 209715200; sleep 60"; echo after'

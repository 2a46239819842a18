run capture=C2
sbatch --parsable -D /tmp/spur-conf-work/sub -o '%x.%j.log' -J cd2 --wrap 'pwd'

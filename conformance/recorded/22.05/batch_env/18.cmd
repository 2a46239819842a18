run capture=E6
sbatch --parsable -N2 --ntasks-per-node=2 --exclusive --export=NONE -D /tmp/spur-conf-work -o envexcl-%j.out --wrap "env | sort"

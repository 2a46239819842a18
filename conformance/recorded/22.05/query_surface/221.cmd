run
squeue -h -t all -o '%i %T' -j $J1,$J2,$J3,$J5 --sort=i

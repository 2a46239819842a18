run
srun -n1 -t 1 --signal=USR1@55 bash -c 'trap "echo got USR1; exit 0" USR1; sleep 200 & wait'

run as=spurtest
srun -n1 --task-prolog=$PWD/tp.sh sh -c 'id -un; echo $TP_VAR'

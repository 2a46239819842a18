run
FOO=bar BAR=x srun --export=BAR /bin/sh -c 'echo ${FOO-unset} $BAR ${PATH-nopath}'

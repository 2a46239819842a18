run
FOO=bar srun --export=NONE /usr/bin/printenv FOO

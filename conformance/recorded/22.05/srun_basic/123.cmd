run
FOO=bar srun --export=NONE /usr/bin/env | sort

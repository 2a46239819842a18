run
FOO=bar srun --export=FOO=baz /usr/bin/env | sort

run
FOO=bar srun printenv FOO

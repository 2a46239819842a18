run
FOO=bar BAR=x srun --export=ALL,FOO=baz sh -c 'echo $FOO $BAR'

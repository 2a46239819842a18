run
FOO=bar srun --export=FOO=baz printenv FOO 2>e.txt; rc=$?; sort e.txt; exit $rc

run
FOO=bar srun --export=NONE printenv FOO 2>e.txt; rc=$?; sort e.txt; exit $rc

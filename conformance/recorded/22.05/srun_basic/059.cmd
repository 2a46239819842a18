run
srun /tmp 2>e.txt; rc=$?; sort e.txt; exit $rc

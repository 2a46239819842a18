run
srun -K -n2 -l sh -c 'if [ $SLURM_PROCID = 1 ]; then exit 4; fi; sleep 60' 2>e.txt; rc=$?; sort e.txt; exit $rc

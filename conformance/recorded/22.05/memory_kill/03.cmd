run as=spurtest
srun -N2 -n2 --mem=50 -l bash -c 'if [ $SLURM_NODEID = 1 ]; then perl -e "\$x = 1 x 209715200; sleep 60"; else sleep 60; fi' 2> >(sed -E 's/limit \([0-9]+ > /limit (N > /' | sort -u >&2)

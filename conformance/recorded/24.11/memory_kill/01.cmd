run
srun -N1 --mem=50 perl -e '$x = "1" x 209715200; sleep 60' 2> >(sed -E 's/limit \([0-9]+ > /limit (N > /' | sort -u >&2)

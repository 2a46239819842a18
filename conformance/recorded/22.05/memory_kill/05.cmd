run
srun -N1 --mem=100 perl -e '$x = "1" x 20971520; sleep 2; print "fine\n"'

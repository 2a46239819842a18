file
args-$G2.out

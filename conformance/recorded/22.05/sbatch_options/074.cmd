file
args-$G1.out

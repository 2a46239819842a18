file
exp2-$X2.out

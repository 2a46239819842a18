file
exp1-$X1.out

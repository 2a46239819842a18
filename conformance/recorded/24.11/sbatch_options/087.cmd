file
exp3-$X3.out

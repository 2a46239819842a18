file
exp4-$X4.out

file
exp6-$X6.out

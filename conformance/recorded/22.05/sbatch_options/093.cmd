file
exp5-$X5.out

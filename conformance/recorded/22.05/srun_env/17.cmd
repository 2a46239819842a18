file
batch-$B.out

file
batch2-$B2.out

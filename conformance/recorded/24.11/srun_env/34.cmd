file
batch3-$B3.out

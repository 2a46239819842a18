file
ef-$O18.out

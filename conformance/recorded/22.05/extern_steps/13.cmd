file
ext-$J.out

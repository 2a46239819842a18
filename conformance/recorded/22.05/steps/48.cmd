file
steps-$J.out

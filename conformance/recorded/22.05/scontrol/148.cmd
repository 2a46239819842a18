file
six-$S6.out

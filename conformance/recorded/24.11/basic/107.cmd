file
trap-$J8.out

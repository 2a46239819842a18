file
exit3-$X1.out

file
nocmd-$X3.out

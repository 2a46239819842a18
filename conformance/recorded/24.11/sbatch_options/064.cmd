file
envout-$V2.out

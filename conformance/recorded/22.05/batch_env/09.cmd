file
envn2-$E3.out

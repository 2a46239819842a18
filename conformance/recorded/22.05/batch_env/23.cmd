file
envn3-$E7.out

file
envopt-$E1.out

file
env-$E1.out

file
fullenv-$E2.out

file
envexcl-$E6.out

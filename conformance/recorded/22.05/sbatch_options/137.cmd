file
envexcl-$E2.out

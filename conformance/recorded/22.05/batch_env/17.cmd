file
envuser-$E5.out

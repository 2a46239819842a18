file
blocked.out

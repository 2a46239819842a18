file
timeout-$T1.out

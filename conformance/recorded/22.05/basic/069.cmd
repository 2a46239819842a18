run
cat out-*

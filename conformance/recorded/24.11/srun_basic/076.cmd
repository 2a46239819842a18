run
cat single.txt single.err

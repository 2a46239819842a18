run
head -1 blocked.err

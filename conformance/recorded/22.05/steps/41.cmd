run
grep 'Step created' blocked.err

run
sort sleep.err

run
scancel -v -t PD -u spurtest

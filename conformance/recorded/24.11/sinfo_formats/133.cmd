run
sinfo -t bogus

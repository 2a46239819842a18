run
sinfo -p debug,nosuch

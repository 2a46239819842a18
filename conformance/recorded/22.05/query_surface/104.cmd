run
sinfo --usage

run
sstat --usage

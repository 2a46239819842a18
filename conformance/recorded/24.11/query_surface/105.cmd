run
sinfo --help

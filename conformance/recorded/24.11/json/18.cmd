run
sinfo --json

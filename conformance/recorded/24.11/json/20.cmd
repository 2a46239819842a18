run
sinfo --json=v0.0.1

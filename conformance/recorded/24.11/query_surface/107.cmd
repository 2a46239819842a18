run
sinfo --version

run
sinfo --yaml

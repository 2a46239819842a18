run
sinfo --hide

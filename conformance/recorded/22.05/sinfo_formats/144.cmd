run
sinfo --sort=-P

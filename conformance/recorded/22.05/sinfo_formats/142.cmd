run
sinfo -N --sort=-N

run
sinfo -o '%P %c %m %D'

run
sinfo --exact -o '%P %c %m'

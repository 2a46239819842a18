run
sinfo -o '%P %C'

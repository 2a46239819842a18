run
sinfo -o '%P %A %F'

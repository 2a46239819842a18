run
timeout 3 stdbuf -oL squeue --iterate=2 -h -o '%i %j %T'

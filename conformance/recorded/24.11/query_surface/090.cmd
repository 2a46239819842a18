run
timeout 3 stdbuf -oL sinfo --iterate=2 -h -N -o '%N %t'

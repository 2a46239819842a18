run
timeout 3 stdbuf -oL sinfo -i 2

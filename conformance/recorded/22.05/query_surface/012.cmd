run
timeout 3 stdbuf -oL squeue -i 2

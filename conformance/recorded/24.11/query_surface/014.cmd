run
timeout 3 stdbuf -oL squeue -i 2 -l -j $J1

run
squeue -s -o '%i|%j|%P|%u|%U|%N|%A|%l|%b' -j $J

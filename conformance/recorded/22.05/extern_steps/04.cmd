run
squeue -s -o '%i|%j|%P|%u|%N|%A|%l'

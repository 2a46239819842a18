run
squeue -h -j $A1 -o '%i|%j|%l|%D|%C|%m|%k|%y|%x|%O|%d'

run
printf 'show job %s\n' $J1 | scontrol -o

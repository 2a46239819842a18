run
printf 'quit\n' | scontrol -o

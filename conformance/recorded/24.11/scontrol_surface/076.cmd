run
printf 'help\n' | scontrol

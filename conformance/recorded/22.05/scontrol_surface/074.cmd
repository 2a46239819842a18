run
printf 'show partition debug -o\n' | scontrol

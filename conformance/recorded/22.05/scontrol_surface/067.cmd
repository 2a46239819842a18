run
printf 'show partition debug\nbogus\n' | scontrol

run
printf 'cluster spur\nshow partition debug\n' | scontrol

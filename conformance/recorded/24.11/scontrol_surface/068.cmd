run
printf 'show job 999999\nshow partition debug\n' | scontrol

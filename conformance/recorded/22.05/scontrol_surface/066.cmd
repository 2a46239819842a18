run
printf 'bogus\nshow partition debug\n' | scontrol

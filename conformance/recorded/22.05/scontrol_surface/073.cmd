run
printf '\n\nshow partition debug\n\nquit\nshow node node1\n' | scontrol

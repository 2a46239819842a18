run
printf 'show partition debug\n!!\nexit\n' | scontrol

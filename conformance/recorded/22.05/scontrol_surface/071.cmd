run
printf '!!\nquit\n' | scontrol

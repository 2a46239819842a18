run
printf 'quiet\nshow job 999999\nverbose\nshow job 999999\n' | scontrol

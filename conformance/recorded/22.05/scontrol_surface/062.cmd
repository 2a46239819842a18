run
printf 'show partition\nping\nquit\n' | scontrol

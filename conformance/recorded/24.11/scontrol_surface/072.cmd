run
printf 'show job 999999\nquit\n' | scontrol -Q

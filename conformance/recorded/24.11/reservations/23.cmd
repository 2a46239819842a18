run
scontrol show job $J1 | grep -E 'Reservation='

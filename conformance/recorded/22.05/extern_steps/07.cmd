run
scontrol show step $J.extern

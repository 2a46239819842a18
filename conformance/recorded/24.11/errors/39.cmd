run
scontrol show bogus

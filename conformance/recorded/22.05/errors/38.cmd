run
scontrol bogus

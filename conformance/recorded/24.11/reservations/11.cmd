run
scontrol show reservation future

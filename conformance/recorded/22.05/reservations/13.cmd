run
scontrol -o show reservation future

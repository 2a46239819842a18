run
scontrol -o show reservation a1

run
scontrol show step $K.0

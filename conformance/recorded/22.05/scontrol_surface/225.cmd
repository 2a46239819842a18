run
scontrol show burstbuffer

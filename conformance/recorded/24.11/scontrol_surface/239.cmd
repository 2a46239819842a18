run as=spurtest
scontrol setdebugflags +backfill

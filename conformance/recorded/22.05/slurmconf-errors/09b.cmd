# bad-state: partition State=SIDEWAYS
sinfo

run
sinfo -M spur

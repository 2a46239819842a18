run
sstat --helpformat

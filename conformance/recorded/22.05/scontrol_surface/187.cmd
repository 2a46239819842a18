run
scontrol liststeps

run as=spurtest
scontrol fsdampeningfactor 2

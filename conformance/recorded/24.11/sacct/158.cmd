run as=spurtest
sacct

run as=spurtest
sacct -a -X

run as=spurtest
sacct -X -j $C

run
sacct -l -j $U

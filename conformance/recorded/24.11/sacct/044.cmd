run
sacct -j $U

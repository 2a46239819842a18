run
sacct -j $H

run
sacct -j abc

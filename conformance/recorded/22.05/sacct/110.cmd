run
sacct -P --delimiter=: -X

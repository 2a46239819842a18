run
sacct -X -s completed,failed -S 2020-01-01 -E now

run
sacct -X -S 2020-01-01 -E 2020-01-02

run
sacct -s F,CA,TO,RQ -S 2020-01-01 -E now

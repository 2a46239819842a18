run
sacct -N node3

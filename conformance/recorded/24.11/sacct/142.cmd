run
sacct -X -N node2

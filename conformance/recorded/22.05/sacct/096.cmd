run
sacct -j $Q --duplicates

run
sacct -j ${A}_2

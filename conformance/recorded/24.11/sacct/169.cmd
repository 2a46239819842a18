run
SLURM_TIME_FORMAT='%d/%m %H:%M' sacct -X -j $C -o JobID,Submit%20

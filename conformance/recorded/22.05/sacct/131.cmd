run
sacct -X -s nosuchstate

run
squeue -s -o '%.15i %.8j %.9P %.8u %.10l %.6A %N' -j $J

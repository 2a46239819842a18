run
squeue -h -o '%A %F %K %P %q %S %V %Z %o'

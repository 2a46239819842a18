run
squeue --bogus

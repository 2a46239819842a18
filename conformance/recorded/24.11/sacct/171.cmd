run
sacct --bogus

run
sinfo --bogus

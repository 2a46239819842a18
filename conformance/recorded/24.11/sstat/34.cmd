run
sstat --bogus

run
sstat -j abc

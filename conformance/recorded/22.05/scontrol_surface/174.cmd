run
scontrol pidinfo abc

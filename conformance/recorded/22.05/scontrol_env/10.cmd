run
SLURM_CONF_OUT=/tmp/spur-conf-written.conf scontrol write config

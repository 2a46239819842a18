run
UNSET_ME=x srun -n2 --task-prolog=$PWD/tp.sh sh -c 'echo "$SLURM_PROCID TP_VAR=$TP_VAR SPACED=[$SPACED] UNSET_ME=${UNSET_ME-unset} CTX=${SLURM_SCRIPT_CONTEXT-none}"' | sort

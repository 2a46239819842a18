run
scontrol update NodeName=node5 State=DOWN Reason='broken disk'

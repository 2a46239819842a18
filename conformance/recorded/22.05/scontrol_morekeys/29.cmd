run
scontrol update NodeName=node1 State=DRAIN Reason=later ResumeAfter=bogus

run
scontrol update NodeName=node1 ResumeAfter=60

run
scancel --name=wf_b --state=PENDING

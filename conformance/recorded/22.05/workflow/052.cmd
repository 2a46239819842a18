run
scancel --name=wf_b

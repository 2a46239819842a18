run
squeue --name=arr

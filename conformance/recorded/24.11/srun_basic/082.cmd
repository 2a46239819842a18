run
echo hi | srun cat

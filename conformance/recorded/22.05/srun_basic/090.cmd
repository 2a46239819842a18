run
echo hi | srun --input none cat

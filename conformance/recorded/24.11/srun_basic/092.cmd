run
echo hi | srun -i none -n2 -l sh -c 'cat; echo end' | sort

run capture=U
sbatch --parsable -J usage_job --mem=400 --wrap 'srun -J grow python3 -c "b = bytearray(100 * 1024 * 1024); import time; time.sleep(4)"'

run
printf '0 echo only\n' > mp2.conf && srun -n2 --multi-prog mp2.conf

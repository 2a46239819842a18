run capture=O8
sbatch --parsable --hold --delay-boot=10 --network=ip --profile=task --propagate=NPROC,CORE --wrap true

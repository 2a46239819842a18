run capture=O6
sbatch --parsable --hold --cpu-freq=Low-High:OnDemand --wrap true

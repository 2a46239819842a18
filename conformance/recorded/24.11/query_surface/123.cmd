run
SINFO_SORT=-N sinfo -N -h -o '%N'

run
SINFO_FORMAT='%P %D %t' sinfo -o '%P'

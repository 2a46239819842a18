run
sinfo -o '%P %a %D %t %N'

run
sinfo -o '%P %a %l %L %D %t %N'

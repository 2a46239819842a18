run
cat > mp.conf <<'EOF'
# a comment
0      echo zero %t %o
1-2    echo range %t %o
*      echo rest %t
EOF

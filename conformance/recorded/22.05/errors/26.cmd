run
sbatch -J bad <<'EOF'
echo no shebang
EOF

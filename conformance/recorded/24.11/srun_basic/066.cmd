run
for f in out-* err-*; do echo "== $f"; cat "$f"; done

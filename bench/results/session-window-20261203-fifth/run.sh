#!/bin/bash
# run.sh TREE LABEL N [extra java opts...]: session-window.sh's java line for TREE's build (no rebuild), output to /tmp/uiw/LABEL.txt
tree=$1; label=$2; n=$3; shift 3
cd "$tree"
opts=$(bench/launcher-options.sh)
echo "java: $(which java); opts: $opts $*; tree $tree $(git -C $tree log --oneline -1)" > /tmp/uiw/$label.txt
java $opts "$@" -cp "bench/target/classes:$(cat bench/target/session-bench.classpath)" \
  dev.loupe.bench.ui.SessionWindowBenchmark $n >> /tmp/uiw/$label.txt 2>&1 &
echo $! > /tmp/uiw/$label.pid
wait $!
echo "exit $?" >> /tmp/uiw/$label.txt

#!/bin/bash
# histo.sh LABEL: live class histograms of the bench JVM 20 s and 40 s after its first progress line
label=$1
for i in $(seq 1 120); do grep -q "flows," /tmp/uiw/$label.txt 2>/dev/null && break; sleep 1; done
pid=$(cat /tmp/uiw/$label.pid)
sleep 8
jcmd $pid GC.class_histogram > /tmp/uiw/$label.histo1.txt 2>&1
sleep 20
jcmd $pid GC.class_histogram > /tmp/uiw/$label.histo2.txt 2>&1

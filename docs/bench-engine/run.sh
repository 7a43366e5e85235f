#!/bin/bash
cd /work/wt-engine
CP=yarn-app/target/classes:$(cat jobs/target/classpath.txt)
D=docs/bench-engine
B="java -cp $CP io.parsa.engine.bench.EngineBench"
N20=/work/shared/datasets/news20.libsvm.gz
run() { name=$1; shift; echo "### $name: $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; echo "\$ java -Xmx$XMX -cp ... io.parsa.engine.bench.EngineBench $* --json $D/$name.json"; java -Xmx$XMX -cp $CP io.parsa.engine.bench.EngineBench "$@" --json $D/$name.json 2>&1; echo "### end $name: $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
XMX=4g run news20-k   --input $N20 -k 16,64,256 -b 16 -a 0,16 --repeat 2
XMX=4g run news20-smallb --input $N20 -k 16 -b 1,2,4 -a 0
XMX=4g run news20-fig8 --input $N20 -k 16 -b 1,4,16,64 --a-percent 0,25,50,100,200
XMX=4g run news20-k1024 --input $N20 -k 1024 -b 1,16 -a 0
XMX=4g run news20-structures --input $N20 -k 16,256 -b 16 -a 16 --repeat 2 --structure bucket-stacks --no-quality
XMX=12g run powerlaw-50M-k16 --generate 2500000 --non-zeros 50000000 -k 16 -b 16 -a 0
XMX=6g run powerlaw-k1024-100k-rows --generate 100000 --non-zeros 2000000 -k 1024 -b 1 -a 0 --no-quality

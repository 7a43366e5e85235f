set -x
cd /work/main
export PARSA_HEAP=10g
bin/parsa engine-bench --input ../shared/datasets/news20.libsvm.gz -k 16,64,256 -b 16 -a 0,16 --repeat 2 --json docs/bench-idle/engine-news20.json
bin/parsa engine-bench --generate 2500000 --columns 2500000 --non-zeros 50000000 -k 16 -b 16 --repeat 2 --json docs/bench-idle/engine-gen5e7.json
CP=yarn-app/target/test-classes:yarn-app/target/classes:avro/target/classes:$(cat jobs/target/classpath.txt)
java -Xmx6g -Dlog4j.configuration=file:bin/log4j-local.properties -cp "$CP" io.parsa.yarn.PartitionUBench /tmp/pbench-big 1000000 1000000 20000000 40 16 1 2 1 2 1 2

#!/bin/bash
while [ ! -f /tmp/speed/ready ]; do sleep 0.5; done
P=$(cat /tmp/speed/ready); sleep 1
perf record -F 999 -g -p $P -o /tmp/speed/perf.data -- sleep 20 > /tmp/speed/perf.rec.log 2>&1

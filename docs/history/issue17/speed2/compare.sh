#!/bin/bash
# compare.sh NAME CONFIG GAMES [extra args]: run base and current, compare chunk hashes
N=$1; CFG=$2; G=$3; shift 3
PY=/work/main/.venv/bin/python; O=/tmp/speed2/cmp; mkdir -p $O
(cd /tmp/speed2/base && BOARDSIM_CACHE_DIR=/tmp/speed2/warm_base PYTHONPATH=$PWD nice -n 5 $PY -m sim.cli run $CFG --games $G -o $O/$N-base --force --no-progress --chunk-games 7000 "$@" > /dev/null) || echo BASE FAILED
(cd /work/wt/speed2 && BOARDSIM_CACHE_DIR=/tmp/speed2/warm_cur PYTHONPATH=$PWD nice -n 5 $PY -m sim.cli run $CFG --games $G -o $O/$N-cur --force --no-progress --chunk-games 7000 "$@" > /dev/null) || echo CUR FAILED
$PY -c "
import json,sys
a=json.load(open('$O/$N-base/manifest.json')); b=json.load(open('$O/$N-cur/manifest.json'))
ha=[(f['path'],f['sha256']) for c in a['chunks'] for f in c['files'].values()]
hb=[(f['path'],f['sha256']) for c in b['chunks'] for f in c['files'].values()]
print('$N', 'IDENTICAL' if ha==hb else 'DIFFERENT', len(ha), 'files')
"

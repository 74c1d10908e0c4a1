#!/usr/bin/env bash
# One call on a lent GPU host (16 cores, ~9 minutes): render the detector's scenes, train the
# detector and the classifier at the same time, package, evaluate; results under $OUT.
# Run from the repo root. The host has torch but not Ultralytics, and shared/ does not travel, so
# first, here:  echo /.whl/ >> .git/info/exclude; echo /.carry/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 -d .whl ultralytics==8.4.190 ultralytics-thop==2.2.3 \
#     ultralytics-platform==0.1.99      # polars is not needed: the trainer reads its CSV itself
#   mkdir -p .carry && cp -r ../shared/decks .carry/decks
# then run `bash vision/train/gpu_train.sh` there with carry [".whl", ".carry"] and a 540 s limit.
# LOCAL=1 PY=.venv/bin/python PROFILE=tiny DEV=cpu IMAGES=8 … runs the same script as a dry run here.
set -u
T0=$(date +%s)
export PYTHONUNBUFFERED=1 YOLO_OFFLINE=1
PY=${PY:-python3}
if [ -z "${LOCAL:-}" ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3; export PYTHONPATH=/tmp/site:$PWD; fi
nvidia-smi -L; nproc; $PY -c "import torch, ultralytics, cv2, onnxruntime; print(torch.__version__, ultralytics.__version__, cv2.__version__, onnxruntime.__version__, torch.cuda.is_available())" || exit 4
D=$PWD/.carry/decks
DECKS="--deck-dir $D/vector-playing-cards --deck-dir $D/svgcards-vertical2 --deck-dir $D/svgcards-horizontal2 --deck-dir $D/svgcards-vertical4"
R=${R:-/tmp/run}; L=${L:-/tmp/logs}; mkdir -p $L $OUT/models
TR="$PY -m vision.train train --profile ${PROFILE:-gpu} --device ${DEV:-0} --out $R $DECKS"
CLS_S=${CLS_S:-380}; IMAGES=${IMAGES:-5000}
$TR --only classifier --classifier-seconds $CLS_S > $L/classifier.log 2>&1 &
CPID=$!
$TR --only dataset --images $IMAGES --render-workers ${RW:-10} --render-seconds ${RS:-110} > $L/detector.log 2>&1
EL=$(( $(date +%s) - T0 )); DET_H=$($PY -c "print(round(max(0.005, (${DET_END:-440} - $EL) / 3600), 4))")
echo "dataset done at ${EL}s; detector hours $DET_H"; tail -2 $L/detector.log
$TR --only detector --images $IMAGES --detector-hours $DET_H --workers ${DW:-7} >> $L/detector.log 2>&1; rc=$?
echo "detector done at $(( $(date +%s) - T0 ))s rc=$rc"
wait $CPID; rc=$?; echo "classifier done at $(( $(date +%s) - T0 ))s rc=$rc"
$TR --only package --images $IMAGES --install $OUT/models >> $L/detector.log 2>&1
cp $R/detector/weights/last.pt $OUT/models/detector_last.pt 2>/dev/null
cp $R/classifier_last.pt $OUT/models/classifier_last.pt 2>/dev/null
echo "packaged at $(( $(date +%s) - T0 ))s"; ls -la $OUT/models
timeout ${EVAL_T:-60} $PY -m vision.train eval --models $OUT/models --synthetic-images ${EVAL_N:-40} $DECKS --json > $L/eval.json 2> $L/eval.log
cat $L/eval.json | head -60
cp $R/detector/results.csv $R/classifier_metrics.json $R/timing.json $L/ 2>/dev/null
cat $L/classifier.log $L/detector.log | tr '\r' '\n' | grep -v "━━━━━━━━━━━━\|it/s\|s/it" > $OUT/train.log
tar czf $OUT/metrics.tgz -C $L .
echo "all done at $(( $(date +%s) - T0 ))s"
grep -E "classifier val" $L/classifier.log | tail -3
tail -5 $R/detector/results.csv

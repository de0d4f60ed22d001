#!/bin/bash
# issue 92 item 3 measurements, quiet machine
cd /work/main
export BURN_GP_DATA=/work/shared/data
PY=/work/bg/torchenv/bin/python
OUT=/work/bg/measure
mkdir -p $OUT
echo "start $(date -u)" > $OUT/log
target/release/deps/trunk_profile-56ee8ca54cfa95fb > $OUT/trunk_profile.md 2>&1
$PY benches/peers/torch_conv_profile.py --threads 2 > $OUT/torch_conv_profile.md 2>&1
for pair in 1 2; do
  for b in avx2 7fae531; do
    /usr/bin/time -f "$b wall %e user %U sys %S" /work/bg/mnist_hybrid_$b --epochs 1 --seed 0 --json --no-progress > $OUT/mnist_${b}_$pair.json 2> $OUT/mnist_${b}_$pair.err
  done
  $PY benches/peers/torch_cnn.py --data $BURN_GP_DATA --epochs 1 --threads 2 > $OUT/torch_$pair.out 2>&1
  for b in 9d907e8 7fae531; do
    /usr/bin/time -f "$b wall %e user %U sys %S" /work/bg/cifar_aug/cifar_hybrid_$b --train-size 5000 --test-size 1000 --epochs 1 --seed 0 --json --no-progress > $OUT/cifar_${b}_$pair.json 2> $OUT/cifar_${b}_$pair.err
  done
  echo "pair $pair done $(date -u)" >> $OUT/log
done
echo "end $(date -u)" >> $OUT/log

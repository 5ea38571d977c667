#!/bin/sh
# queue_budget.sh WSC CONFIG EXPECT_FAIL: a saturated traffic run on CONFIG with a memory budget
# of its own estimate plus 10 MB (about 140 000 queued packets) must stop with exit 2 when its
# source queues reach the budget. The estimate includes the process itself, which is several
# times larger in a sanitizer build, so the budget is derived from it rather than fixed.
set -eu
wsc=$1 config=$2 expect_fail=$3
mb=$("$wsc" validate "$config" | sed -n 's/.*estimated memory \([0-9.]*\) MB)$/\1/p')
test -n "$mb"
budget=$(awk "BEGIN { printf \"%dKB\", ($mb + 10) * 1024 }")
exec "$expect_fail" 2 \
  'traffic: [0-9]+ packets are queued in the network at cycle [0-9]+: the offered load \(1 flits/node/cycle\) is beyond what it drains' \
  -- "$wsc" traffic "$config" --rate 1 --max-memory "$budget"
